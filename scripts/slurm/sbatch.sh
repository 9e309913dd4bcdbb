#!/usr/bin/env bash
# Writes the Slurm batch script of one chapter: `make sbatch CH=NN` (or
# `scripts/slurm/sbatch.sh NN > file`). Submit it from the workbook's folder with
# `sbatch target/slurm/chNN.sbatch`; its output lands in target/slurm/workbook-chNN-JOBID.out.
# The script runs `make check CH=NN` inside the allocation with MPIRUN=srun, so every
# check's ranks are tasks of a job step. Its size is course.toml's: the most ranks one check
# starts (check_ranks), the cores per rank (cores_per_rank), and, for a chapter with GPU
# binaries (gpu_bins), a GPU per task where the site has them (commented: uncomment on a GPU
# partition).
set -euo pipefail
nn=${1:?which chapter? e.g. scripts/slurm/sbatch.sh 03}
# The chapters are course.toml's (the registry): `workbook dir NN` fails for any other.
if ! cargo run -q -p course --bin workbook -- dir "$nn" >/dev/null 2>&1; then
  echo "sbatch.sh: no chapter '$nn' ($(cargo run -q -p course --bin workbook -- chapters | tr '\n' ' '| sed 's/ $//'))" >&2
  exit 2
fi
read -r tasks cores gpu <<<"$(cargo run -q -p course --bin workbook -- slurm "$nn")"
cat <<SCRIPT
#!/bin/bash
# The workbook's chapter $nn check as a Slurm batch job (written by scripts/slurm/sbatch.sh).
#SBATCH --job-name=workbook-ch$nn
#SBATCH --ntasks=$tasks
#SBATCH --time=00:30:00
#SBATCH --output=target/slurm/%x-%j.out
SCRIPT
if [ "$cores" -gt 1 ]; then echo "#SBATCH --cpus-per-task=$cores"; fi
if [ "$gpu" = gpu ]; then cat <<'SCRIPT'
# On a GPU partition (names differ per site: sinfo -o "%P %G"), one GPU per rank, the
# GPU nearest each rank's cores:
##SBATCH --partition=gpu
##SBATCH --gpus-per-task=1
##SBATCH --gpu-bind=closest
SCRIPT
fi
cat <<SCRIPT

# Site modules (the names differ per site: \`module avail mpi\`), e.g.:
# module load openmpi/4.1 llvm rust
set -euo pipefail
cd "\$SLURM_SUBMIT_DIR"
export MPIRUN=srun          # each check's ranks: srun --mpi=pmix inside this allocation
echo "job \$SLURM_JOB_ID: \$SLURM_NTASKS tasks on \$SLURM_JOB_NODELIST, MPIRUN=\$MPIRUN"
make check CH=$nn
SCRIPT

//! The MPI the tuner tunes (part of the `tune` benchmark): its allreduce algorithms, how
//! one is forced, and its decision table's file: Open MPI's rules file ([`ch03::rules`])
//! or MPICH's selection file ([`ch03::mpich_rules`]). Nothing here runs MPI.

use ch03::mpich_rules::{self, MPICH_ALLREDUCE, MPICH_ALLREDUCE_LABELS};
use ch03::rules::{AllreduceRules, OMPI_ALLREDUCE};
use toolkit::launch::Flavor;

/// One MPI library, as the tuner sees it.
pub struct Library {
    /// Its name in the table's lines.
    pub name: &'static str,
    /// Its algorithms' labels; index 0 is its own choice.
    pub algorithms: &'static [&'static str],
    /// The variable that forces an algorithm.
    pub knob: &'static str,
    /// The table's file name under target/workbook.
    pub file: &'static str,
    mpich: bool,
}

impl Library {
    /// The library a launcher of `flavor` starts (None for Slurm's `srun`: either).
    pub fn of(flavor: Flavor) -> Option<Library> {
        match flavor {
            Flavor::OpenMpi => Some(Library::open_mpi()),
            Flavor::Mpich => Some(Library::mpich()),
            Flavor::Slurm => None,
        }
    }

    fn open_mpi() -> Library {
        Library {
            name: "Open MPI",
            algorithms: &OMPI_ALLREDUCE,
            knob: "coll_tuned_allreduce_algorithm",
            file: "ch03-allreduce-rules.txt",
            mpich: false,
        }
    }

    fn mpich() -> Library {
        Library {
            name: "MPICH",
            algorithms: &MPICH_ALLREDUCE_LABELS,
            knob: "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM",
            file: "ch03-allreduce-mpich.json",
            mpich: true,
        }
    }

    /// The library whose file `path` is: MPICH's for `.json`, else Open MPI's.
    pub fn of_file(path: &str) -> Library {
        if path.ends_with(".json") {
            Library::mpich()
        } else {
            Library::open_mpi()
        }
    }

    /// The environment that forces algorithm `k` (0: the library's own choice).
    pub fn forced(&self, k: usize) -> Vec<(&'static str, String)> {
        if self.mpich {
            let k = (k > 0).then(|| {
                (
                    "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM",
                    MPICH_ALLREDUCE[k].into(),
                )
            });
            return k.into_iter().collect();
        }
        vec![
            ("OMPI_MCA_coll_tuned_use_dynamic_rules", (k > 0).to_string()),
            ("OMPI_MCA_coll_tuned_allreduce_algorithm", k.to_string()),
        ]
    }

    /// The environment that makes the library read the table at `path`.
    pub fn with_file(&self, path: &str) -> Vec<(&'static str, String)> {
        if self.mpich {
            return vec![("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", path.into())];
        }
        vec![
            ("OMPI_MCA_coll_tuned_use_dynamic_rules", "1".into()),
            ("OMPI_MCA_coll_tuned_dynamic_rules_filename", path.into()),
        ]
    }

    /// The table's file text.
    pub fn write(&self, rules: &AllreduceRules) -> String {
        if self.mpich {
            mpich_rules::to_json(rules)
        } else {
            rules.to_text()
        }
    }

    /// The table from its file text, or one line that says why not.
    pub fn parse(&self, text: &str) -> Result<AllreduceRules, String> {
        if self.mpich {
            mpich_rules::parse(text)
        } else {
            AllreduceRules::parse(text)
        }
    }

    /// The algorithm the library takes from `rules` for `bytes` at `p` ranks (0: none).
    pub fn choice(&self, rules: &AllreduceRules, p: u64, bytes: u64) -> usize {
        let at = if self.mpich {
            // MPICH: the first table size at or above p, else the largest.
            let next = rules.sizes.iter().find(|(s, _)| *s >= p);
            next.or(rules.sizes.last()).map(|(s, _)| *s).unwrap_or(p)
        } else {
            p
        };
        rules.choice(at, bytes).unwrap_or(0) as usize
    }
}

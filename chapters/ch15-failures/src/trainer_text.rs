//! Given: what the elastic supervisor reads of a trainer: its flags (`--checkpoint`,
//! `--batch`, or the default `--batch` its `--help` names), and the lines of its output
//! that must repeat bit for bit when a launch is run again from the same checkpoint.

/// The value after `name` in `args`.
pub fn flag(args: &[String], name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

/// The global batch: `--batch` in the flags, else the trainer's default (its `--help`).
pub fn batch_of(program: &str, args: &[String]) -> Result<usize, String> {
    if let Some(b) = flag(args, "--batch") {
        return b.parse().map_err(|_| format!("--batch {b}: not a number"));
    }
    let help = std::process::Command::new(program).arg("--help").output();
    let help = help.map_err(|e| format!("cannot run {} --help: {e}", program))?;
    let text = String::from_utf8_lossy(&help.stdout).into_owned();
    let line = text.lines().find(|l| l.trim_start().starts_with("--batch"));
    let default = line.and_then(|l| l.split("[default: ").nth(1)?.split(']').next());
    default.and_then(|d| d.parse().ok()).ok_or(format!(
        "{} --help names no default --batch: give --batch",
        program
    ))
}

/// The lines of a trainer's output that must repeat bit for bit: its losses (`step 12:
/// loss 1.234567891` with chapter 8's `--losses`; `epoch 1: train loss 0.8123`, without
/// the speed that follows) and its parameters' fingerprints (`step 40 fingerprint
/// 9628dde5b1103b51`, without the folder).
pub fn trajectory(lines: &[&str]) -> Vec<String> {
    let mut kept = vec![];
    for line in lines {
        if line.starts_with("step ") && line.contains(": loss ") {
            kept.push(line.to_string());
        } else if let Some(i) = line.find("train loss") {
            let end = line[i..].find(',').map_or(line.len(), |e| i + e);
            kept.push(line[..end].trim().to_string());
        } else if let Some(f) = line.split("fingerprint ").nth(1) {
            let step = line.split("step ").nth(1).and_then(|s| s.split(' ').next());
            let fp = f.trim_end_matches(')');
            kept.push(format!("step {} fingerprint {fp}", step.unwrap_or("?")));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trajectory_keeps_losses_and_fingerprints_only() {
        let lines = [
            "zero: stage 2 (ZeRO-2) on 3 ranks",
            "step 11: loss 1.8110109170277913",
            "epoch  1: train loss 1.4348, 10807 samples/s",
            "checkpoint: step 20 in target/x (parameters' fingerprint 7b962c22c310d7c0)",
        ];
        let want = [
            "step 11: loss 1.8110109170277913",
            "epoch  1: train loss 1.4348",
            "step 20 fingerprint 7b962c22c310d7c0",
        ];
        assert_eq!(trajectory(&lines), want);
        let args: Vec<String> = ["--batch", "64"].map(String::from).to_vec();
        assert_eq!(flag(&args, "--batch").as_deref(), Some("64"));
        assert_eq!(batch_of("unused", &args), Ok(64));
    }
}

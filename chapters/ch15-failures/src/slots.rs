//! Given: the slots the elastic supervisor may launch on ([`Pool`]). With `HOSTFILE` (a
//! cluster: one host per line, `node-a slots=2`), the hosts that still answer; on one
//! machine, the slots of the first launch less one per failed launch.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One host of a hostfile and its slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    pub slots: usize,
}

/// Where the supervisor may launch ranks.
#[derive(Debug)]
pub enum Pool {
    /// This machine: `slots` left.
    Local { slots: usize },
    /// The hosts of `HOSTFILE` that answered the last probe.
    Hosts { hosts: Vec<Host>, lost: Vec<String> },
}

/// How long a host has to answer its remote shell.
const PROBE: Duration = Duration::from_secs(5);

impl Pool {
    /// The pool of a first launch on `ranks` ranks: `HOSTFILE`'s hosts if set, else this
    /// machine.
    pub fn new(ranks: usize) -> Result<Pool, String> {
        match toolkit::launcher::hostfile() {
            None => Ok(Pool::Local { slots: ranks }),
            Some(file) => {
                let text =
                    std::fs::read_to_string(&file).map_err(|e| format!("HOSTFILE={file}: {e}"))?;
                let hosts = parse_hosts(&text);
                if hosts.is_empty() {
                    return Err(format!("HOSTFILE={file} lists no host"));
                }
                Ok(Pool::Hosts {
                    hosts,
                    lost: vec![],
                })
            }
        }
    }

    /// After a failed launch: one slot fewer on one machine; on a cluster, the hosts that
    /// still answer (the next launches get a hostfile of those alone).
    pub fn after_failure(&mut self) {
        match self {
            Pool::Local { slots } => *slots = slots.saturating_sub(1),
            Pool::Hosts { hosts, lost } => {
                let (up, down): (Vec<Host>, Vec<Host>) =
                    hosts.drain(..).partition(|h| answers(&h.name));
                lost.extend(down.into_iter().map(|h| h.name));
                *hosts = up;
                let file = toolkit::report::out_dir().join("supervise-hosts");
                let text: String = hosts
                    .iter()
                    .map(|h| format!("{} slots={}\n", h.name, h.slots))
                    .collect();
                if std::fs::write(&file, text).is_ok() {
                    std::env::set_var("HOSTFILE", PathBuf::from(&file));
                }
            }
        }
    }

    /// The slots available now.
    pub fn alive(&self) -> usize {
        match self {
            Pool::Local { slots } => *slots,
            Pool::Hosts { hosts, .. } => hosts.iter().map(|h| h.slots).sum(),
        }
    }

    /// `3 slots left on this machine (...)`, or the hosts that answer and those lost.
    pub fn describe(&self) -> String {
        match self {
            Pool::Local { slots } => format!(
                "{slots} slots left on this machine (one taken out per failed launch: the \
                 stand-in for the dead rank's GPU)"
            ),
            Pool::Hosts { hosts, lost } => {
                let up: Vec<String> = hosts
                    .iter()
                    .map(|h| format!("{} ({})", h.name, h.slots))
                    .collect();
                let lost = if lost.is_empty() {
                    "none".into()
                } else {
                    lost.join(", ")
                };
                format!("hosts that answer: {}; lost: {lost}", up.join(", "))
            }
        }
    }
}

/// The hosts of a hostfile: `name [slots=K]` per line (1 slot without), `#` comments.
pub fn parse_hosts(text: &str) -> Vec<Host> {
    let lines = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim());
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next().unwrap_or_default().to_string();
            let slots = words
                .find_map(|w| w.strip_prefix("slots=")?.parse().ok())
                .unwrap_or(1);
            Host { name, slots }
        })
        .collect()
}

/// Whether `host` runs `true` through the launcher's remote shell within [`PROBE`].
fn answers(host: &str) -> bool {
    let shell = std::env::var("OMPI_MCA_plm_rsh_agent").unwrap_or_else(|_| "ssh".into());
    let child = Command::new(&shell)
        .args([host, "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return false;
    };
    let start = Instant::now();
    while start.elapsed() < PROBE {
        if let Ok(Some(status)) = child.try_wait() {
            return status.success();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostfile_is_read() {
        let hosts = parse_hosts("10.77.0.2 slots=2\n# a comment\n\nnode-c\n");
        let want = [("10.77.0.2", 2), ("node-c", 1)];
        let got: Vec<(&str, usize)> = hosts.iter().map(|h| (h.name.as_str(), h.slots)).collect();
        assert_eq!(got, want);
    }
}

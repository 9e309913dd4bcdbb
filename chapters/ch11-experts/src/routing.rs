//! Given: what the router decides for a batch of tokens ([`Routing`]), and what a
//! dispatch leaves on each rank ([`Dispatched`]), which the experts and the combine use.

/// One of a token's k choices: an expert, its gate weight, and whether it found room.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The expert (a global id, `0..E`).
    pub expert: usize,
    /// The gate weight its output is multiplied by in the combine.
    pub gate: f32,
    /// `false`: the expert was full when this choice's turn came; it is dropped and
    /// contributes nothing.
    pub kept: bool,
}

/// The router's decision for `tokens` tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct Routing {
    /// T, the tokens routed.
    pub tokens: usize,
    /// k, the choices per token.
    pub k: usize,
    /// C, the most (token, choice) pairs each expert takes.
    pub capacity: usize,
    /// `T·k` choices, token-major: choice `j` of token `t` is `choices[t * k + j]`, the
    /// best (highest logit) first.
    pub choices: Vec<Choice>,
    /// Per expert, the choices it kept (at most C).
    pub load: Vec<usize>,
    /// Per expert, the choices that found it full.
    pub dropped: Vec<usize>,
}

/// What a dispatch leaves on a rank: what it sent where, and the rows it received.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Dispatched {
    /// Floats per row.
    pub hidden: usize,
    /// The kept choices of this rank's tokens in the order their rows were sent: indices
    /// into [`Routing::choices`], sorted by expert (hence by the rank that holds it), in
    /// token order within one expert.
    pub sent: Vec<usize>,
    /// Rows sent to each rank.
    pub send_counts: Vec<usize>,
    /// Rows received from each rank.
    pub recv_counts: Vec<usize>,
    /// Rows received from each rank for each of this rank's experts: `P` blocks of
    /// `Layout::max_local()` counts (rank `s`'s count for local expert `l` at
    /// `s * max_local + l`; unused places are 0).
    pub recv_expert_counts: Vec<usize>,
    /// The rows received: from rank 0 first, then rank 1, ...; within one sender, by
    /// expert, as it sent them.
    pub rows: Vec<f32>,
}

impl Dispatched {
    /// For each received row, in order, the local expert it is for (`0..max_local`).
    pub fn local_experts(&self, max_local: usize) -> Vec<usize> {
        let mut out = vec![];
        for block in self.recv_expert_counts.chunks(max_local.max(1)) {
            for (l, &n) in block.iter().enumerate() {
                out.extend(std::iter::repeat_n(l, n));
            }
        }
        out
    }
}

//! Given: generated tokens and their router logits. There are as many clusters as
//! experts; a token is drawn near the centre of one cluster, and its logit for expert `e`
//! is its dot product with centre `e` (times 4), so each cluster is best served by one
//! expert. How often each cluster is drawn (its popularity) sets how uneven the experts'
//! load is. Every draw comes from a seed: the same tokens on every run and every machine.

/// SplitMix64 (Steele, Lea and Flood): small, fast and well mixed.
pub struct Rng(u64);

impl Rng {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal draw (Box-Muller).
    pub fn normal(&mut self) -> f32 {
        let (u, v) = (1.0 - self.uniform(), self.uniform());
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
}

/// A batch of tokens: `x` (`tokens × hidden`), `logits` (`tokens × experts`), and the
/// cluster each token was drawn from.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    /// The tokens' rows, token-major.
    pub x: Vec<f32>,
    /// The router's logits, token-major.
    pub logits: Vec<f32>,
    /// The cluster of each token.
    pub cluster: Vec<usize>,
}

/// The clusters: one centre per expert, `hidden` floats each, drawn from `seed`.
pub struct Task {
    /// Floats per row.
    pub hidden: usize,
    centres: Vec<Vec<f32>>,
}

impl Task {
    /// `experts` cluster centres of `hidden` floats (entries of scale `1/sqrt(hidden)`).
    pub fn new(experts: usize, hidden: usize, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let s = 1.0 / (hidden.max(1) as f32).sqrt();
        let centres = (0..experts)
            .map(|_| (0..hidden).map(|_| rng.normal() * s).collect())
            .collect();
        Task { hidden, centres }
    }

    /// The clusters' centres, one per expert (`hidden` floats each): a router whose
    /// logits are `4·x·centres` routes each cluster to its own expert, as the batch's
    /// `logits` do.
    pub fn centres(&self) -> &[Vec<f32>] {
        &self.centres
    }

    /// `tokens` tokens, cluster `i` drawn with probability proportional to
    /// `1 / (i + 1)^skew` (skew 0: every cluster equally often), each token its centre
    /// plus a noise of a third of its scale.
    pub fn batch(&self, tokens: usize, skew: f64, seed: u64) -> Batch {
        let mut rng = Rng::new(seed);
        let e = self.centres.len();
        let weight: Vec<f64> = (0..e).map(|i| (i as f64 + 1.0).powf(-skew)).collect();
        let total: f64 = weight.iter().sum();
        let s = 1.0 / (self.hidden.max(1) as f32).sqrt() / 3.0;
        let mut batch = Batch {
            x: vec![],
            logits: vec![],
            cluster: vec![],
        };
        for _ in 0..tokens {
            let mut u = rng.uniform() * total;
            let c = (0..e)
                .find(|&i| {
                    u -= weight[i];
                    u < 0.0
                })
                .unwrap_or(e - 1);
            let row: Vec<f32> = self.centres[c]
                .iter()
                .map(|m| m + rng.normal() * s)
                .collect();
            for centre in &self.centres {
                let dot: f32 = centre.iter().zip(&row).map(|(a, b)| a * b).sum();
                batch.logits.push(4.0 * dot);
            }
            batch.x.extend(row);
            batch.cluster.push(c);
        }
        batch
    }
}

//! The trainers' random numbers where every rank must draw the same ones (the data order,
//! generated tasks): SplitMix64, small, fast and well mixed, the same stream for the same
//! seed on every rank and every machine.

/// SplitMix64 (Steele, Lea and Flood): its state is the 64-bit counter it holds.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_splitmix64s() {
        // The reference values of SplitMix64 from seed 0.
        let mut r = SplitMix64(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.0, 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(2));
    }
}

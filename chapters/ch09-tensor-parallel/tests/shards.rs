//! Checks of exercise 9.1 (which part of a layer rank r of t owns): every even split of
//! 1..=48 things over 1..=8 ranks, its one-line refusal, and every vocabulary of 1..=40
//! ids over 1..=8 ranks. No MPI: plain arithmetic.
//!
//! Run: `make check CH=09` (your code) or `cargo test -p ch09-tensor-parallel --features
//! solution --test main shards::`.

use crate::common;

use ch09::shards::{even_range, vocab_range};

#[test]
fn ex9_1_even_blocks_in_rank_order_and_uneven_splits_refused() {
    for total in 1..=48 {
        for t in 1..=8 {
            for r in 0..t {
                let got = even_range(total, t, r, "heads");
                if total % t != 0 {
                    let want =
                        format!("tensor-parallel size {t} does not divide the {total} heads");
                    assert_eq!(got, Err(want), "{total} heads over {t} ranks, rank {r}");
                    continue;
                }
                let per = total / t;
                assert_eq!(
                    got,
                    Ok(r * per..(r + 1) * per),
                    "{total} heads over {t} ranks: rank {r} owns block {r} of {per}"
                );
            }
        }
    }
}

#[test]
fn ex9_1_vocabulary_shards_give_the_first_ranks_one_id_more() {
    for vocab in 1..=40 {
        for t in 1..=8 {
            if let Err(why) = common::check_vocab(vocab, t, vocab_range) {
                panic!("{why}");
            }
        }
    }
}

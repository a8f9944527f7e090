//! Lazy SMP depth schedule: helper threads skip some iteration depths, in blocks of different sizes
//! and phases per thread, so that at any time the threads are spread over two or more depths and
//! fill the shared TT with different parts of the tree. (The block sizes and phases follow the
//! scheme Stockfish used in its Lazy SMP years.)

const SKIP_SIZE: [u32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [u32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// True when thread `thread` (0 = master, which never skips) should skip iteration `depth`.
pub fn skip_depth(thread: usize, depth: u32) -> bool {
    if thread == 0 || depth <= 1 {
        return false;
    }
    let i = (thread - 1) % SKIP_SIZE.len();
    !((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]).is_multiple_of(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn master_never_skips_and_helpers_differ() {
        assert!((1..40).all(|d| !skip_depth(0, d)));
        let pattern = |t: usize| (2..30).map(|d| skip_depth(t, d)).collect::<Vec<_>>();
        assert_ne!(pattern(1), pattern(2));
        assert_ne!(pattern(3), pattern(7));
        for t in 1..40 {
            // Every helper still searches about half of the depths.
            let searched = (2..42).filter(|&d| !skip_depth(t, d)).count();
            assert!((12..=28).contains(&searched), "thread {t}: {searched}");
        }
    }
}

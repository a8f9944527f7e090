//! Every search constant in one place (pruning margins and depths, reduction table, aspiration
//! window). A normal build compiles them as constants; built with `--features tune` each becomes a
//! UCI spin option (`setoption name <NAME> value <v>`) and `trine spsa` prints the OpenBench SPSA
//! input lines `name, int, value, min, max, c_end, r_end` from the same table.

/// One tunable parameter.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// UCI / SPSA name.
    pub name: &'static str,
    /// Value the engine uses unless tuned.
    pub default: i32,
    /// Lowest value a tuner may try.
    pub min: i32,
    /// Highest value a tuner may try.
    pub max: i32,
    /// SPSA's final perturbation size.
    pub c_end: f64,
    /// SPSA's final learning rate.
    pub r_end: f64,
}

macro_rules! search_params {
    ($( $(#[$doc:meta])* $name:ident = $default:expr, $min:expr, $max:expr, $c_end:expr; )*) => {
        /// The parameter table, in declaration order.
        pub const PARAMS: &[Param] = &[
            $( Param { name: stringify!($name), default: $default, min: $min, max: $max, c_end: $c_end, r_end: 0.002 }, )*
        ];

        #[cfg(feature = "tune")]
        mod slots {
            use std::sync::atomic::AtomicI32;
            $( #[allow(non_upper_case_globals)] pub static $name: AtomicI32 = AtomicI32::new($default); )*
        }

        $(
            $(#[$doc])*
            #[allow(non_snake_case)]
            #[inline(always)]
            pub fn $name() -> i32 {
                #[cfg(feature = "tune")]
                {
                    slots::$name.load(std::sync::atomic::Ordering::Relaxed)
                }
                #[cfg(not(feature = "tune"))]
                {
                    $default
                }
            }
        )*

        /// Sets a parameter by name (tune builds only); `false` for an unknown name.
        #[cfg(feature = "tune")]
        pub fn set(name: &str, value: i32) -> bool {
            $(
                if name.eq_ignore_ascii_case(stringify!($name)) {
                    slots::$name.store(value, std::sync::atomic::Ordering::Relaxed);
                    return true;
                }
            )*
            false
        }
    };
}

search_params! {
    /// Reverse futility pruning: deepest remaining depth.
    RFP_DEPTH = 7, 3, 10, 0.5;
    /// Reverse futility pruning: margin per ply, centipawns.
    RFP_MARGIN = 80, 30, 150, 5.0;
    /// Null-move pruning: smallest remaining depth.
    NMP_DEPTH = 3, 2, 5, 0.5;
    /// Null-move pruning: base reduction.
    NMP_BASE = 3, 2, 5, 0.5;
    /// Null-move pruning: one more ply of reduction per this many plies of depth.
    NMP_DIVISOR = 4, 2, 8, 0.5;
    /// Null-move pruning: one more ply of reduction per this many centipawns of static eval above
    /// beta.
    NMP_EVAL_DIVISOR = 200, 100, 400, 10.0;
    /// Null-move pruning: most plies the eval margin adds.
    NMP_EVAL_MAX = 3, 1, 5, 0.5;
    /// Futility pruning of quiet moves: deepest remaining depth.
    FUTILITY_DEPTH = 6, 2, 9, 0.5;
    /// Futility pruning: base margin, centipawns.
    FUTILITY_BASE = 90, 20, 200, 8.0;
    /// Futility pruning: margin per ply, centipawns.
    FUTILITY_MARGIN = 80, 30, 150, 5.0;
    /// Late-move pruning: quiet moves tried before the rest are skipped = LMP_BASE + depth².
    LMP_BASE = 3, 1, 8, 0.5;
    /// Late-move pruning: deepest remaining depth.
    LMP_DEPTH = 7, 3, 10, 0.5;
    /// LMR table: base reduction in hundredths of a ply.
    LMR_BASE = 75, 0, 200, 8.0;
    /// LMR table: divisor of ln(depth)·ln(move number), in hundredths.
    LMR_DIVISOR = 225, 150, 400, 10.0;
    /// LMR: one ply less per this much history (of ±16,384), rounded to the nearest ply. A ply per
    /// 6,144 gained +18.0 over a ply per 8,192; a ply per 4,096 measured −15.4
    /// (docs/history/search-experiments.md).
    LMR_HISTORY_STEP = 6144, 2048, 16384, 256.0;
    /// SEE pruning of quiet moves: margin per ply (negative), centipawns.
    SEE_QUIET = -60, -150, -20, 5.0;
    /// SEE pruning of captures: margin per ply² (negative), centipawns.
    SEE_NOISY = -25, -80, -5, 3.0;
    /// Internal iterative reduction: smallest depth at which a node without a TT move is reduced.
    IIR_DEPTH = 4, 2, 8, 0.5;
    /// Razoring: deepest remaining depth.
    RAZOR_DEPTH = 3, 1, 5, 0.5;
    /// Razoring: margin per ply below alpha, centipawns.
    RAZOR_MARGIN = 250, 100, 500, 10.0;
    /// Singular extension: smallest remaining depth.
    SE_DEPTH = 7, 4, 12, 0.5;
    /// Singular extension: margin below the TT score per ply of depth, centipawns.
    SE_MARGIN = 2, 1, 5, 0.5;
    /// Correction history: largest correction of the static evaluation, centipawns (at most 255,
    /// so that a slot of 1/128 cp fits an `i16`).
    CORR_LIMIT = 96, 32, 200, 8.0;
    /// Correction history: a node of `depth` moves its slot `min(depth + 1, CORR_WEIGHT_MAX) / 128`
    /// of the way to the new error (twice the step of 256ths: +20.9 (+3.9 … +37.9) over 600 games).
    CORR_WEIGHT_MAX = 16, 4, 64, 2.0;
    /// History pruning of quiet moves: deepest remaining depth (with the margin below, +9.7
    /// (+0.9 … +18.6) over 2,400 games at 2+0.02).
    HIST_PRUNE_DEPTH = 3, 1, 6, 0.5;
    /// History pruning: a quiet move whose history is below minus this per ply is skipped.
    HIST_PRUNE_MARGIN = 2048, 512, 8192, 256.0;
    /// Aspiration window half-width, centipawns.
    ASPIRATION = 20, 8, 60, 2.0;
}

/// The OpenBench SPSA input, one line per parameter.
pub fn spsa_lines() -> Vec<String> {
    PARAMS
        .iter()
        .map(|p| {
            format!(
                "{}, int, {}, {}, {}, {}, {}",
                p.name, p.default, p.min, p.max, p.c_end, p.r_end
            )
        })
        .collect()
}

/// Late-move reduction in plies for a move at `depth` that is the `index`-th tried (1-based).
/// A normal build reads it from a table computed once; a `tune` build computes it each time, since
/// its constants can change between searches.
#[inline]
pub fn lmr_reduction(depth: i32, index: usize) -> i32 {
    #[cfg(not(feature = "tune"))]
    {
        let d = depth.clamp(0, LMR_TABLE_DEPTHS as i32 - 1) as usize;
        i32::from(LMR_TABLE[d][index.min(LMR_TABLE_MOVES - 1)])
    }
    #[cfg(feature = "tune")]
    {
        lmr_formula(depth, index)
    }
}

/// Rows (depths) of the reduction table; deeper nodes use the last row.
#[cfg_attr(feature = "tune", allow(dead_code))]
const LMR_TABLE_DEPTHS: usize = 128;
/// Columns (move numbers) of the table: more than the legal moves of any position.
#[cfg_attr(feature = "tune", allow(dead_code))]
const LMR_TABLE_MOVES: usize = 256;

#[cfg(not(feature = "tune"))]
static LMR_TABLE: std::sync::LazyLock<Box<[[u8; LMR_TABLE_MOVES]; LMR_TABLE_DEPTHS]>> =
    std::sync::LazyLock::new(|| {
        let mut t = Box::new([[0u8; LMR_TABLE_MOVES]; LMR_TABLE_DEPTHS]);
        for (depth, row) in t.iter_mut().enumerate() {
            for (index, r) in row.iter_mut().enumerate() {
                *r = lmr_formula(depth as i32, index).clamp(0, 255) as u8;
            }
        }
        t
    });

/// The reduction formula: LMR_BASE/100 + ln(depth)·ln(index)·100/LMR_DIVISOR, rounded down.
fn lmr_formula(depth: i32, index: usize) -> i32 {
    if depth < 1 || index < 1 {
        return 0;
    }
    let r = f64::from(LMR_BASE()) / 100.0
        + (f64::from(depth)).ln() * (index as f64).ln() * 100.0 / f64::from(LMR_DIVISOR());
    r as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_spsa_lines_agree() {
        assert_eq!(PARAMS.len(), spsa_lines().len());
        for p in PARAMS {
            assert!(p.min <= p.default && p.default <= p.max, "{}", p.name);
        }
        assert_eq!(spsa_lines()[0], "RFP_DEPTH, int, 7, 3, 10, 0.5, 0.002");
        assert_eq!(RFP_MARGIN(), 80);
    }

    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        assert_eq!(lmr_reduction(1, 1), 0);
        assert!(lmr_reduction(10, 20) > lmr_reduction(10, 3));
        assert!(lmr_reduction(20, 20) > lmr_reduction(5, 20));
        assert!(lmr_reduction(30, 60) < 10);
    }

    #[test]
    fn table_matches_the_formula() {
        for depth in 0..LMR_TABLE_DEPTHS as i32 {
            for index in 0..LMR_TABLE_MOVES {
                assert_eq!(lmr_reduction(depth, index), lmr_formula(depth, index));
            }
        }
        assert_eq!(lmr_reduction(500, 900), lmr_formula(127, 255));
    }
}

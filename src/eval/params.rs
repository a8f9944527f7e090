//! The evaluation's weights, all in one flat table of midgame/endgame pairs ([`EvalParams`]) so that
//! the Texel tuner (`tuning/`, `trine-tune`) can read every weight, fit it, and write the table back
//! as Rust source ([`weights_source`] → `src/eval/weights.rs`). Each evaluation term owns a named
//! range of the table ([`GROUPS`]); the constants below are the start of each range.

use std::fmt::Write as _;

/// Weight units per centipawn: the table holds quarter centipawns, so that writing the tuner's
/// real-valued fit as integers barely moves it (rounding every weight to a whole centipawn adds
/// about 2 cp of noise to a typical position's score; for round 13's fit it raised the validation
/// error by 0.000019, more than the fit had lowered it, against 0.000002 in quarters). The
/// evaluation divides by it once, at the end.
pub const UNIT: i32 = 4;

/// What one [`UNIT`] is called in the generated table's header and the tuner's report.
pub fn unit_name() -> String {
    unit_name_of(UNIT)
}

fn unit_name_of(unit: i32) -> String {
    match unit {
        1 => "centipawns".to_string(),
        2 => "half centipawns".to_string(),
        4 => "quarter centipawns".to_string(),
        n => format!("1/{n} centipawns"),
    }
}

/// A midgame/endgame pair of weights (or of summed scores).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S {
    /// Midgame value, in [`UNIT`]s ([`unit_name`]).
    pub mg: i32,
    /// Endgame value, in [`UNIT`]s ([`unit_name`]).
    pub eg: i32,
}

/// Shorthand constructor used by the generated weight table.
pub const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

/// Most king-danger attack units counted.
pub const KING_DANGER_CAP: i32 = 30;

macro_rules! layout {
    ($( $(#[doc = $doc:literal])* $name:ident = $len:expr, $label:literal; )*) => {
        layout!(@consts 0usize; $( $(#[doc = $doc])* $name = $len; )*);
        /// Every term group: (name, first index, length), in table order.
        pub const GROUPS: &[(&str, usize, usize)] = &[ $( ($label, $name, $len) ),* ];
    };
    (@consts $at:expr; $(#[doc = $doc:literal])* $name:ident = $len:expr; $($rest:tt)*) => {
        $(#[doc = $doc])*
        pub const $name: usize = $at;
        layout!(@consts $at + $len; $($rest)*);
    };
    (@consts $at:expr;) => {
        /// Number of weight pairs in the table.
        pub const LEN: usize = $at;
    };
}

layout! {
    /// Material by role (pawn, knight, bishop, rook, queen, king).
    MATERIAL = 6, "material";
    /// Piece-square tables by role and square (white's view, a1 = 0).
    PST = 6 * 64, "pst";
    /// Knight mobility by number of reachable squares (0..=8).
    MOBILITY_KNIGHT = 9, "mobility_knight";
    /// Bishop mobility (0..=13).
    MOBILITY_BISHOP = 14, "mobility_bishop";
    /// Rook mobility (0..=14).
    MOBILITY_ROOK = 15, "mobility_rook";
    /// Queen mobility (0..=27).
    MOBILITY_QUEEN = 28, "mobility_queen";
    /// Passed pawn by relative rank.
    PASSED = 8, "passed";
    /// Passed pawn whose stop square is occupied, by relative rank.
    PASSED_BLOCKED = 8, "passed_blocked";
    /// Per square of distance from our king to a passer's stop square, by the passer's rank.
    PASSED_OWN_KING = 8, "passed_own_king_distance";
    /// Per square of distance from the enemy king to a passer's stop square, by rank.
    PASSED_ENEMY_KING = 8, "passed_enemy_king_distance";
    /// Pawn with no friendly pawn on an adjacent file.
    ISOLATED = 1, "isolated";
    /// Pawn with a friendly pawn ahead of it on its file.
    DOUBLED = 1, "doubled";
    /// Pawn that no friendly pawn can support and whose stop square an enemy pawn attacks.
    BACKWARD = 1, "backward";
    /// Pawn defended by a pawn or beside one, by relative rank.
    CONNECTED = 8, "connected";
    /// Attacks on the enemy king zone, per attacked square, by attacker (knight, bishop, rook, queen).
    KING_ZONE_ATTACK = 4, "king_zone_attack";
    /// Safe checking squares we attack, by checker (knight, bishop, rook, queen).
    SAFE_CHECK = 4, "safe_check";
    /// King danger by the attack units `u` on the enemy king (capped at [`KING_DANGER_CAP`]), one
    /// weight per value of `u`, so the tuner fits the whole (non-linear) curve. `u` adds up the
    /// pieces reaching the king zone (knight or bishop 2, rook 3, queen 5), two per safe check,
    /// one per unsafe check, per weak zone square and per man pinned to the king; halved when
    /// the attacker has no queen (see `terms.rs`).
    KING_DANGER = KING_DANGER_CAP as usize + 1, "king_danger";
    /// Pawn shelter: per file around our king, the relative rank of our nearest pawn (0 = none).
    SHELTER = 8, "shelter";
    /// King on a file with no pawns.
    KING_OPEN_FILE = 1, "king_open_file";
    /// King on a file with enemy pawns only.
    KING_SEMI_OPEN_FILE = 1, "king_semi_open_file";
    /// Two or more bishops.
    BISHOP_PAIR = 1, "bishop_pair";
    /// Rook on a file with no pawns.
    ROOK_OPEN_FILE = 1, "rook_open_file";
    /// Rook on a file with enemy pawns only.
    ROOK_SEMI_OPEN_FILE = 1, "rook_semi_open_file";
    /// Knight / bishop on an outpost (ranks 4-6, pawn-defended, no enemy pawn can attack it).
    OUTPOST = 2, "outpost";
    /// Enemy pieces attacked by our pawns, by target role.
    THREAT_BY_PAWN = 6, "threat_by_pawn";
    /// Enemy pieces attacked by our knights and bishops, by target role.
    THREAT_BY_MINOR = 6, "threat_by_minor";
    /// Enemy pieces attacked by our rooks, by target role.
    THREAT_BY_ROOK = 6, "threat_by_rook";
    /// Enemy pieces (not pawns or the king) we attack that nothing defends.
    HANGING = 1, "hanging";
    /// Side to move.
    TEMPO = 1, "tempo";
    /// Pawn storm: per file around our king, the relative rank (our view, 0 = none) of the enemy
    /// pawn nearest our king ahead of it, when no pawn of ours stands right in front of it.
    PAWN_STORM = 8, "pawn_storm";
    /// The same enemy pawn when a pawn of ours blocks it (rammed: it cannot open the file).
    PAWN_STORM_BLOCKED = 8, "pawn_storm_blocked";
    /// Passed pawn whose stop square is empty and not attacked by the enemy, by relative rank.
    PASSED_SAFE_PUSH = 8, "passed_safe_push";
    /// Rook on the seventh rank while the enemy king is on the eighth or enemy pawns are on the
    /// seventh.
    ROOK_ON_SEVENTH = 1, "rook_on_seventh";
    /// Per bishop: our pawns on its square colour that an enemy pawn blocks.
    BISHOP_RAMMED_PAWNS = 1, "bishop_rammed_pawns";
    /// Enemy pieces (not pawns or the king) a safe one-square pawn push would attack.
    THREAT_PAWN_PUSH = 1, "threat_pawn_push";
    /// Our king on a flank (its file and the files around it) without any pawns.
    KING_PAWNLESS_FLANK = 1, "king_pawnless_flank";
    /// Knight or bishop with a pawn (either colour) right in front of it.
    MINOR_BEHIND_PAWN = 1, "minor_behind_pawn";
    /// Per knight, our pawn count minus five (knights gain with pawns on the board).
    KNIGHT_PAWNS = 1, "knight_pawns";
    /// Per rook, our pawn count minus five (rooks gain as the board opens).
    ROOK_PAWNS = 1, "rook_pawns";
    /// A rook on a passer's file behind it with nothing between: ours (0) or the enemy's (1).
    ROOK_BEHIND_PASSER = 2, "rook_behind_passer";
    /// Squares of the enemy king zone we attack that no enemy pawn, minor or rook defends.
    WEAK_KING_ZONE = 1, "weak_king_zone";
    /// Distance from our king to our nearest pawn (1..=7; index 0 unused, no pawns adds nothing).
    KING_PAWN_DISTANCE = 8, "king_pawn_distance";
    /// Isolated (0) or backward (1) pawn with no enemy pawn ahead on its file (open to rooks).
    WEAK_UNOPPOSED = 2, "weak_unopposed";
    /// Passed pawn whose whole path to promotion is empty and not attacked by the enemy, by rank.
    PASSED_FREE_PATH = 8, "passed_free_path";
    /// Per knight (0) or bishop (1), its distance to our king.
    KING_PROTECTOR = 2, "king_protector";
    /// Enemy pieces or pawns (not the king) our king attacks that nothing of theirs defends.
    THREAT_BY_KING = 1, "threat_by_king";
    /// Bishop that sees two centre squares through the pawns (a long diagonal).
    BISHOP_LONG_DIAGONAL = 1, "bishop_long_diagonal";
    /// Rook with at most three squares to go, on the corner side of its own king (see `terms.rs`).
    TRAPPED_ROOK = 1, "trapped_rook";
    /// Pawn that is not passed, has no enemy pawn ahead on its file, and has at least as many
    /// friendly pawns on the adjacent files level with it or behind as enemy pawns on the adjacent
    /// files ahead of it (a candidate passer), by relative rank.
    CANDIDATE_PASSER = 8, "candidate_passer";
    /// Pawn with a friendly pawn beside it on its rank, by relative rank (on top of `connected`).
    PHALANX = 8, "phalanx";
    /// Per pawn, the number of friendly pawns defending it (0..=2).
    PAWN_SUPPORTERS = 1, "pawn_supporters";
    /// Endgame complexity (see `mod.rs`): total pawns, pawns on both flanks, no pieces but pawns,
    /// king outflanking (file distance minus rank distance), passers of both sides, constant.
    /// Signed towards the side ahead in the endgame, the sum moves the endgame score towards or
    /// away from zero, never past it.
    COMPLEXITY = 6, "complexity";
    /// Our pieces and pawns pinned to our king by an enemy slider, by role (pawn … queen).
    PINNED = 5, "pinned";
    /// Enemy pawns we attack that nothing of theirs defends.
    HANGING_PAWN = 1, "hanging_pawn";
    /// Enemy pieces (not pawns or the king) we attack twice that they defend only once.
    THREAT_DOUBLE = 1, "threat_double";
    /// Enemy pawns we attack twice that they defend only once.
    THREAT_DOUBLE_PAWN = 1, "threat_double_pawn";
    /// Squares a knight of ours can go to safely and attack the enemy queen from.
    KNIGHT_ON_QUEEN = 1, "knight_on_queen";
    /// Squares a bishop or rook of ours can go to safely and attack the enemy queen from.
    SLIDER_ON_QUEEN = 1, "slider_on_queen";
    /// Squares both sides attack that the enemy does not hold strongly (by a pawn, or twice when we
    /// attack once): their pieces' moves we restrict.
    RESTRICTED = 1, "restricted";
    /// Enemy men we attack that their queen defends and that are not held strongly (as in
    /// `restricted`: no pawn defends them, nor two defenders against our one); other defenders
    /// may be there too. Their king counts when it stands in check beside its queen.
    WEAK_QUEEN_PROTECTION = 1, "weak_queen_protection";
    /// Correction to `shelter` by the shelter file: whether it is the king's own file, the file's
    /// distance to the board's edge (a/h = 0 … d/e = 3) and the shelter pawn's relative rank
    /// (0 = no pawn), index `own · 32 + edge · 8 + rank`.
    SHELTER_FILE = 64, "shelter_file";
    /// Correction to `pawn_storm` and `pawn_storm_blocked` by the file's distance to the edge:
    /// index `blocked · 32 + edge · 8 + rank` (rank 0 = no enemy pawn on the file, unblocked).
    STORM_FILE = 64, "storm_file";
    /// Our pawns, knights and bishops in our own king zone (the king's square and its
    /// neighbours), by count (0..=8).
    KING_DEFENDERS = 9, "king_defenders";
    /// Our queen on a line with an enemy bishop or rook, one man between them: a pin against the
    /// queen or a discovered attack on it.
    QUEEN_RELATIVE_PIN = 1, "queen_relative_pin";
    /// Correction to `isolated` by the pawn's file distance to the edge (a/h = 0 … d/e = 3).
    ISOLATED_FILE = 4, "isolated_file";
    /// Correction to `backward` by the pawn's relative rank.
    BACKWARD_RANK = 8, "backward_rank";
}

/// Every evaluation weight.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalParams {
    /// The flat weight table; the constants of this module index it.
    pub w: [S; LEN],
}

impl EvalParams {
    /// The weights the engine plays with (`src/eval/weights.rs`).
    pub const fn default_weights() -> EvalParams {
        EvalParams {
            w: super::weights::WEIGHTS,
        }
    }

    /// Builds a table from a slice of exactly [`LEN`] pairs.
    pub fn from_slice(v: &[S]) -> Result<EvalParams, String> {
        let w: [S; LEN] = v
            .try_into()
            .map_err(|_| format!("expected {LEN} weight pairs, got {}", v.len()))?;
        Ok(EvalParams { w })
    }
}

/// The engine's weights.
pub const DEFAULT_PARAMS: EvalParams = EvalParams::default_weights();

/// The readable name of weight `i`, e.g. `pst[knight][e4]` or `mobility_rook[7]`.
pub fn name(i: usize) -> String {
    const ROLES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
    for &(label, start, len) in GROUPS {
        if i >= start && i < start + len {
            let k = i - start;
            return match label {
                "material" => format!("material[{}]", ROLES[k]),
                "pst" => format!("pst[{}][{}]", ROLES[k / 64], square_name(k % 64)),
                "threat_by_pawn" | "threat_by_minor" | "threat_by_rook" => {
                    format!("{label}[{}]", ROLES[k])
                }
                "king_zone_attack" | "safe_check" => format!("{label}[{}]", ROLES[k + 1]),
                "outpost" | "king_protector" => format!("{label}[{}]", ROLES[k + 1]),
                "pinned" => format!("{label}[{}]", ROLES[k]),
                _ if len == 1 => label.to_string(),
                _ => format!("{label}[{k}]"),
            };
        }
    }
    format!("unknown[{i}]")
}

fn square_name(sq: usize) -> String {
    let file = (b'a' + (sq % 8) as u8) as char;
    format!("{file}{}", sq / 8 + 1)
}

/// Rust source of `src/eval/weights.rs` holding `w`: one commented block per term group, eight
/// pairs a line (a rank of a piece-square table).
pub fn weights_source(w: &[S; LEN], header: &str) -> String {
    let mut out = String::new();
    out.push_str("//! The evaluation weights, generated by `trine-tune` (tuning/): do not edit by hand, re-tune.\n");
    let _ = writeln!(
        out,
        "//! Units: {} (`params::UNIT` per centipawn).",
        unit_name()
    );
    for line in header.lines() {
        let _ = writeln!(out, "//! {line}");
    }
    out.push_str("\nuse super::params::{s, LEN, S};\n\n");
    out.push_str("/// The weight table; see `params.rs` for what each range means.\n");
    out.push_str("#[rustfmt::skip]\npub const WEIGHTS: [S; LEN] = [\n");
    for &(label, start, len) in GROUPS {
        if label == "pst" {
            const ROLES: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
            for (r, role) in ROLES.iter().enumerate() {
                let _ = writeln!(out, "    // pst {role} (a1..h1, a2..h2, ...)");
                for rank in 0..8 {
                    let at = start + r * 64 + rank * 8;
                    write_pairs(&mut out, &w[at..at + 8]);
                }
            }
            continue;
        }
        let _ = writeln!(out, "    // {label}");
        for chunk in w[start..start + len].chunks(8) {
            write_pairs(&mut out, chunk);
        }
    }
    out.push_str("];\n");
    out
}

fn write_pairs(out: &mut String, pairs: &[S]) {
    out.push_str("   ");
    for p in pairs {
        let _ = write!(out, " s({}, {}),", p.mg, p.eg);
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_is_named_from_its_value() {
        assert_eq!(unit_name_of(1), "centipawns");
        assert_eq!(unit_name_of(4), "quarter centipawns");
        assert_eq!(unit_name_of(8), "1/8 centipawns");
        let source = weights_source(&crate::eval::DEFAULT_PARAMS.w, "");
        assert!(source.contains(&format!("//! Units: {} (", unit_name())));
    }

    #[test]
    fn groups_tile_the_table() {
        let mut at = 0;
        for &(_, start, len) in GROUPS {
            assert_eq!(start, at);
            at += len;
        }
        assert_eq!(at, LEN);
        assert_eq!(name(PST + 64 + 28), "pst[knight][e4]");
        assert_eq!(name(MOBILITY_ROOK + 7), "mobility_rook[7]");
        assert_eq!(name(TEMPO), "tempo");
        assert_eq!(name(SAFE_CHECK + 3), "safe_check[queen]");
    }

    #[test]
    fn source_round_trips_through_the_parser_shape() {
        let src = weights_source(&DEFAULT_PARAMS.w, "test");
        let pairs: Vec<&str> = src.matches(" s(").collect();
        assert_eq!(pairs.len(), LEN);
        assert!(EvalParams::from_slice(&DEFAULT_PARAMS.w[..LEN - 1]).is_err());
    }
}

//! The triangular PV table (one per thread): row `ply` holds the best line found so far from the node
//! at `ply`; when a move raises alpha at a PV node, the row becomes that move followed by the
//! child's row. Row 0 is the principal variation from the root.

use shakmaty::Move;

use crate::score::MAX_PLY;

/// Triangular array of moves, `MAX_PLY` rows of up to `MAX_PLY` moves, allocated once per thread.
pub struct PvTable {
    moves: Vec<[Option<Move>; MAX_PLY]>,
    len: [usize; MAX_PLY + 1],
}

impl Default for PvTable {
    fn default() -> Self {
        PvTable::new()
    }
}

impl PvTable {
    /// An empty table.
    pub fn new() -> PvTable {
        PvTable {
            moves: vec![[None; MAX_PLY]; MAX_PLY],
            len: [0; MAX_PLY + 1],
        }
    }

    /// Empties the row of `ply` (on entering a node).
    #[inline]
    pub fn clear(&mut self, ply: usize) {
        if ply < MAX_PLY {
            self.len[ply] = 0;
        }
    }

    /// Row `ply` := `m` followed by row `ply + 1`.
    #[inline]
    pub fn update(&mut self, ply: usize, m: Move) {
        if ply >= MAX_PLY {
            return;
        }
        let child_len = if ply + 1 < MAX_PLY {
            self.len[ply + 1]
        } else {
            0
        };
        let n = child_len.min(MAX_PLY - ply - 1);
        self.moves[ply][0] = Some(m);
        if n > 0 {
            let (head, tail) = self.moves.split_at_mut(ply + 1);
            head[ply][1..=n].copy_from_slice(&tail[0][..n]);
        }
        self.len[ply] = n + 1;
    }

    /// Sets row `ply` from a line (a split point's best child PV, a learned line...).
    pub fn set(&mut self, ply: usize, line: &[Move]) {
        if ply >= MAX_PLY {
            return;
        }
        let n = line.len().min(MAX_PLY);
        for (slot, m) in self.moves[ply].iter_mut().zip(line.iter().take(n)) {
            *slot = Some(*m);
        }
        self.len[ply] = n;
    }

    /// The line stored at `ply`.
    pub fn line(&self, ply: usize) -> Vec<Move> {
        if ply >= MAX_PLY {
            return Vec::new();
        }
        self.moves[ply][..self.len[ply]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    fn mv(from: Square, to: Square) -> Move {
        Move::Normal {
            role: Role::Knight,
            from,
            capture: None,
            to,
            promotion: None,
        }
    }

    #[test]
    fn collects_lines_bottom_up() {
        let mut t = PvTable::new();
        let (a, b, c) = (
            mv(Square::G1, Square::F3),
            mv(Square::G8, Square::F6),
            mv(Square::B1, Square::C3),
        );
        t.clear(3);
        t.update(2, c);
        t.update(1, b);
        t.update(0, a);
        assert_eq!(t.line(0), vec![a, b, c]);
        assert_eq!(t.line(1), vec![b, c]);
        t.clear(1);
        t.update(0, a);
        assert_eq!(t.line(0), vec![a]);
        t.set(5, &[a, b]);
        assert_eq!(t.line(5), vec![a, b]);
        t.update(MAX_PLY - 1, a);
        assert_eq!(t.line(MAX_PLY - 1), vec![a]);
    }
}

//! Expected node types (Knuth–Moore PV/CUT/ALL), predicted before a node is searched by the rules of
//! Onno Garms and Pradu Kannan, and the per-thread statistics that measure how often the prediction
//! matches the outcome (exact = PV, fail-high = CUT, fail-low = ALL).

use std::fmt;

/// The type a node is expected to be (or turned out to be).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// Score expected inside the window; every move searched, exact score.
    Pv = 0,
    /// Expected to fail high: one good move should refute.
    Cut = 1,
    /// Expected to fail low: every move must be searched.
    All = 2,
}

impl NodeType {
    /// All three, in table order.
    pub const ALL_TYPES: [NodeType; 3] = [NodeType::Pv, NodeType::Cut, NodeType::All];

    /// Expected type of the `index`-th child searched (0-based), before any re-search:
    /// - PV: first child PV, later children (zero-window scouts) CUT;
    /// - CUT: first child ALL, later children CUT (the node turns into an ALL-node once its
    ///   candidate cutoff moves failed, and the children of ALL-nodes are CUT-nodes);
    /// - ALL: every child CUT.
    #[inline]
    pub fn child(self, index: usize) -> NodeType {
        match (self, index) {
            (NodeType::Pv, 0) => NodeType::Pv,
            (NodeType::Pv, _) => NodeType::Cut,
            (NodeType::Cut, 0) => NodeType::All,
            (NodeType::Cut, _) => NodeType::Cut,
            (NodeType::All, _) => NodeType::Cut,
        }
    }

    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::Pv => "PV",
            NodeType::Cut => "CUT",
            NodeType::All => "ALL",
        }
    }
}

/// What the search found at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// alpha < score < beta.
    Exact = 0,
    /// score >= beta.
    FailHigh = 1,
    /// score <= alpha.
    FailLow = 2,
}

impl Outcome {
    /// The outcome of a search that returned `score` for the window (`alpha`, `beta`).
    #[inline]
    pub fn of(score: i32, alpha: i32, beta: i32) -> Outcome {
        if score >= beta {
            Outcome::FailHigh
        } else if score > alpha {
            Outcome::Exact
        } else {
            Outcome::FailLow
        }
    }

    /// The node type an outcome proves a node to be.
    pub fn node_type(self) -> NodeType {
        match self {
            Outcome::Exact => NodeType::Pv,
            Outcome::FailHigh => NodeType::Cut,
            Outcome::FailLow => NodeType::All,
        }
    }
}

/// Confusion matrix of predicted node type (rows) against outcome (columns), counted per thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeStats {
    /// `counts[predicted][outcome]`
    pub counts: [[u64; 3]; 3],
}

impl NodeStats {
    /// Records one fully searched node.
    #[inline]
    pub fn record(&mut self, predicted: NodeType, outcome: Outcome) {
        self.counts[predicted as usize][outcome as usize] += 1;
    }

    /// Adds another thread's counts.
    pub fn merge(&mut self, other: &NodeStats) {
        for (row, orow) in self.counts.iter_mut().zip(other.counts.iter()) {
            for (c, o) in row.iter_mut().zip(orow.iter()) {
                *c += o;
            }
        }
    }

    /// Total nodes recorded.
    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    /// Fraction of nodes whose outcome matched the prediction.
    pub fn accuracy(&self) -> f64 {
        let total = self.total();
        if total == 0 {
            return 0.0;
        }
        let right: u64 = (0..3).map(|i| self.counts[i][i]).sum();
        right as f64 / total as f64
    }

    /// Fraction of nodes predicted `t` that came out as `t`.
    pub fn accuracy_of(&self, t: NodeType) -> f64 {
        let row = self.counts[t as usize];
        let total: u64 = row.iter().sum();
        if total == 0 {
            0.0
        } else {
            row[t as usize] as f64 / total as f64
        }
    }
}

impl fmt::Display for NodeStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<14}{:>14}{:>14}{:>14}{:>10}",
            "predicted", "exact(PV)", "fail-high(CUT)", "fail-low(ALL)", "right"
        )?;
        for t in NodeType::ALL_TYPES {
            let row = self.counts[t as usize];
            writeln!(
                f,
                "{:<14}{:>14}{:>14}{:>14}{:>9.1}%",
                t.name(),
                row[0],
                row[1],
                row[2],
                100.0 * self.accuracy_of(t)
            )?;
        }
        write!(
            f,
            "overall prediction accuracy {:.1}% of {} searched nodes",
            100.0 * self.accuracy(),
            self.total()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_rules() {
        assert_eq!(NodeType::Pv.child(0), NodeType::Pv);
        assert_eq!(NodeType::Pv.child(3), NodeType::Cut);
        assert_eq!(NodeType::Cut.child(0), NodeType::All);
        assert_eq!(NodeType::Cut.child(1), NodeType::Cut);
        assert_eq!(NodeType::All.child(0), NodeType::Cut);
        assert_eq!(NodeType::All.child(9), NodeType::Cut);
    }

    #[test]
    fn stats_accuracy() {
        let mut s = NodeStats::default();
        s.record(NodeType::Cut, Outcome::FailHigh);
        s.record(NodeType::Cut, Outcome::FailLow);
        s.record(NodeType::All, Outcome::FailLow);
        s.record(NodeType::Pv, Outcome::Exact);
        assert_eq!(s.total(), 4);
        assert!((s.accuracy() - 0.75).abs() < 1e-9);
        assert!((s.accuracy_of(NodeType::Cut) - 0.5).abs() < 1e-9);
        let mut t = NodeStats::default();
        t.merge(&s);
        t.merge(&s);
        assert_eq!(t.total(), 8);
        assert!(s.to_string().contains("CUT"));
    }
}

//! Keyed reconciliation of two models.
//!
//! Identity keys turn matching into a hash lookup, so the diff is O(n) plus, per parent, a
//! longest-increasing-subsequence pass over the matched children: the children on the LIS
//! stay put and only the others are reported as moved, so one row jumping to the top is one
//! op, not one per row it jumped over. A node whose parent changed is removed and re-added
//! (its key and ref survive, since both are independent of the DOM node).

use crate::model::{Model, NONE, same_kind};
use crate::record::Walk;
use rustc_hash::FxHashMap;

/// An element of an insertion run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item {
    /// A new node (rendered with its whole subtree).
    New(u32),
    /// An existing node moved here within the same parent: (old, new).
    Moved(u32, u32),
}

/// Where an insertion run goes, in terms of nodes that stay in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// Right after this in-place old node.
    After(u32),
    /// At the start of this old parent's children ([`NONE`] = the top level).
    FirstIn(u32),
}

/// One diff op, in old/new model indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Op {
    Remove(u32),
    Replace(u32, u32),
    Insert(Anchor, Vec<Item>),
    /// An in-place node whose line changed: (old, new).
    Change(u32, u32),
}

/// The result of [`reconcile`].
#[derive(Debug, Default)]
pub(crate) struct Diff {
    pub ops: Vec<Op>,
    /// Elements touched: removed and inserted subtree sizes, plus moves and changes. Compared
    /// against the page size to decide a reset.
    pub weight: usize,
    /// new → old for nodes that stayed in place ([`NONE`] otherwise).
    pub inplace: Vec<u32>,
}

/// Elements an op list touches: removed and inserted subtree sizes, plus moves and changes.
pub(crate) fn weight(ops: &[Op], old: &Model, new: &Model) -> usize {
    let sub = |m: &Model, k: u32| (m.end[k as usize] - k) as usize;
    ops.iter()
        .map(|op| match op {
            Op::Remove(o) => sub(old, *o),
            Op::Replace(o, n) => sub(old, *o) + sub(new, *n),
            Op::Change(..) => 1,
            Op::Insert(_, items) => items
                .iter()
                .map(|it| match *it {
                    Item::New(n) => sub(new, n),
                    Item::Moved(..) => 1,
                })
                .sum(),
        })
        .sum()
}

/// Marks the longest strictly increasing subsequence of `seq`.
pub(crate) fn lis(seq: &[u32]) -> Vec<bool> {
    let mut keep = vec![true; seq.len()];
    if seq.windows(2).all(|w| w[0] < w[1]) {
        return keep;
    }
    let mut tails: Vec<usize> = Vec::new();
    let mut prev = vec![usize::MAX; seq.len()];
    for i in 0..seq.len() {
        let p = tails.partition_point(|&t| seq[t] < seq[i]);
        if p > 0 {
            prev[i] = tails[p - 1];
        }
        if p == tails.len() {
            tails.push(i);
        } else {
            tails[p] = i;
        }
    }
    keep.iter_mut().for_each(|k| *k = false);
    let mut cur = tails.last().copied().unwrap_or(usize::MAX);
    while cur != usize::MAX {
        keep[cur] = true;
        cur = prev[cur];
    }
    keep
}

/// Diffs `old` (built from `old_walk`) against `new` (built from `new_walk`). The walks are only
/// read to tell whether a removed leaf and the leaf that took its place are the same kind of
/// element.
pub(crate) fn reconcile(old: &Model, old_walk: &Walk, new: &Model, new_walk: &Walk) -> Diff {
    let mut d = Diff {
        inplace: vec![NONE; new.len()],
        ..Diff::default()
    };
    let mut old_inplace = vec![false; old.len()];
    let mut old_hit = vec![false; old.len()];
    let mut stack: Vec<(u32, u32)> = vec![(NONE, NONE)];
    // Scratch buffers reused across parents.
    let mut matched: Vec<u32> = Vec::new();
    let mut seq: Vec<u32> = Vec::new();
    let mut removed: Vec<(usize, u32)> = Vec::new();
    let mut anchors: Vec<u32> = Vec::new();
    let mut descend: Vec<(u32, u32)> = Vec::new();
    let mut by_key: FxHashMap<u64, u32> = FxHashMap::default();
    let mut by_ref: FxHashMap<u32, u32> = FxHashMap::default();
    while let Some((op, np)) = stack.pop() {
        let oc = old.children(op);
        let nc = new.children(np);
        matched.clear();
        seq.clear();
        let mut indexed = false;
        let mut ref_indexed = false;
        let mut cursor = 0usize;
        let mut misses = 0usize;
        for &n in nc.iter() {
            let key = new.key[n as usize];
            let at = |j: usize| oc.get(j).is_some_and(|&o| old.key[o as usize] == key);
            // Most children are where the cursor expects them (or one further, past a removed
            // one): no probe. Otherwise search this parent's old children only — a match must
            // have the same parent anyway — by a scan for the first few misses (one moved row
            // in a long list should not cost indexing the list), then by an index.
            let found = if at(cursor) {
                Some(cursor)
            } else if at(cursor + 1) {
                Some(cursor + 1)
            } else {
                misses += 1;
                if misses <= 8 {
                    oc.iter().position(|&o| old.key[o as usize] == key)
                } else {
                    if !indexed {
                        by_key.clear();
                        by_key.extend(oc.iter().map(|&o| (old.key[o as usize], o)));
                        indexed = true;
                    }
                    by_key.get(&key).map(|&o| old.pos[o as usize] as usize)
                }
            };
            // An element that kept its ref under a new key (its name changed; see the model's
            // rebinding) is the same element: matched by ref, it is a change in place.
            let found = found.or_else(|| {
                let r = new.refn[n as usize];
                if r == 0 {
                    return None;
                }
                if !ref_indexed {
                    by_ref.clear();
                    by_ref.extend(
                        oc.iter()
                            .filter(|&&o| old.refn[o as usize] != 0)
                            .map(|&o| (old.refn[o as usize], o)),
                    );
                    ref_indexed = true;
                }
                by_ref.get(&r).map(|&o| old.pos[o as usize] as usize)
            });
            let m = match found {
                Some(j) => {
                    cursor = j + 1;
                    oc[j]
                }
                None => NONE,
            };
            // Keys are unique, so no old node can match twice; guard anyway.
            let m = if m != NONE && old_hit[m as usize] { NONE } else { m };
            if m != NONE {
                old_hit[m as usize] = true;
                seq.push(old.pos[m as usize]);
            }
            matched.push(m);
        }
        let keep = lis(&seq);
        let mut j = 0;
        anchors.clear();
        for (k, &m) in matched.iter().enumerate() {
            if m != NONE {
                if keep[j] {
                    old_inplace[m as usize] = true;
                    d.inplace[nc[k] as usize] = m;
                    anchors.push(m);
                }
                j += 1;
            }
        }
        removed.clear();
        let mut seg = 0;
        for &o in oc {
            if old_inplace[o as usize] {
                seg += 1;
            } else if !old_hit[o as usize] {
                removed.push((seg, o));
            }
        }
        // Walk the new children, flushing each run of non-anchors against the removals of the
        // same gap between anchors.
        let mut ri = 0;
        let mut seg = 0;
        let mut run: Vec<Item> = Vec::new();
        descend.clear();
        let flush = |seg: usize, run: &mut Vec<Item>, ri: &mut usize, d: &mut Diff| {
            let start = *ri;
            while *ri < removed.len() && removed[*ri].0 == seg {
                *ri += 1;
            }
            let gap = &removed[start..*ri];
            if let ([(_, o)], [Item::New(n)]) = (gap, run.as_slice()) {
                let (o, n) = (*o, *n);
                // A text leaf whose text changed has a new key (text is its identity) but is,
                // to a reader, the same line in the same place: say so as a change, which also
                // lets churn tracking follow a counter across its changing keys. Only a leaf of
                // the same kind qualifies: a heading that gave way to a region is another
                // element, and pairing them would hand the heading's churn record (and its
                // `live` suppression) to the region.
                if old.end[o as usize] == o + 1
                    && new.end[n as usize] == n + 1
                    && old.refn[o as usize] == 0
                    && new.refn[n as usize] == 0
                    && same_kind(
                        old_walk.nodes.get(old.rec[o as usize] as usize),
                        new_walk.nodes.get(new.rec[n as usize] as usize),
                    )
                {
                    d.weight += 1;
                    d.inplace[n as usize] = o;
                    d.ops.push(Op::Change(o, n));
                    run.clear();
                    return;
                }
                let (o, n) = (&o, &n);
                d.weight += (old.end[*o as usize] - o) as usize + (new.end[*n as usize] - n) as usize;
                d.ops.push(Op::Replace(*o, *n));
                run.clear();
                return;
            }
            for &(_, o) in gap {
                d.weight += (old.end[o as usize] - o) as usize;
                d.ops.push(Op::Remove(o));
            }
            if !run.is_empty() {
                let at = if seg == 0 {
                    Anchor::FirstIn(op)
                } else {
                    Anchor::After(anchors[seg - 1])
                };
                for it in run.iter() {
                    d.weight += match *it {
                        Item::New(n) => (new.end[n as usize] - n) as usize,
                        Item::Moved(..) => 1,
                    };
                }
                d.ops.push(Op::Insert(at, std::mem::take(run)));
            }
        };
        for (k, &m) in matched.iter().enumerate() {
            let n = nc[k];
            if m == NONE {
                run.push(Item::New(n));
            } else if d.inplace[n as usize] == m {
                flush(seg, &mut run, &mut ri, &mut d);
                seg += 1;
                if old.hash[m as usize] != new.hash[n as usize] {
                    d.weight += 1;
                    d.ops.push(Op::Change(m, n));
                }
                descend.push((m, n));
            } else {
                run.push(Item::Moved(m, n));
                descend.push((m, n));
            }
        }
        flush(seg, &mut run, &mut ri, &mut d);
        stack.extend(descend.iter().rev().copied());
    }
    d
}

#[cfg(test)]
mod tests {
    use super::lis;

    #[test]
    fn lis_marks_the_longest_run() {
        assert_eq!(lis(&[0, 1, 2]), vec![true, true, true]);
        // One element jumped to the front: everything else stays.
        assert_eq!(lis(&[4, 0, 1, 2, 3]), vec![false, true, true, true, true]);
        assert_eq!(lis(&[1, 2, 3, 4, 0]), vec![true, true, true, true, false]);
        assert_eq!(lis(&[]), Vec::<bool>::new());
        let l = lis(&[3, 1, 2, 0]);
        assert_eq!(l.iter().filter(|b| **b).count(), 2);
    }
}

//! The index of a session: ids, parents, labels, name and leaf, built in
//! one pass over the entries exactly as pi's `_buildIndex` builds it.

use crate::entry::{Entries, EntryType, Extra, Id};
use crate::error::Diagnostic;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

/// A map keyed by entry id, with [`IdHash`].
type IdMap<V> = HashMap<Id, V, IdHash>;

/// A cheap hasher for ids (most are a `u32`): a few multiplications
/// instead of SipHash, keyed per process so that a crafted file cannot
/// make its ids collide. pi-import keys its tables of source ids with it too.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdHash {
    seed: u64,
}

impl Default for IdHash {
    fn default() -> Self {
        use std::sync::OnceLock;
        static SEED: OnceLock<u64> = OnceLock::new();
        let seed = *SEED.get_or_init(|| {
            std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) | 1
        });
        IdHash { seed }
    }
}

impl BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher { h: self.seed }
    }
}

/// See [`IdHash`].
pub(crate) struct IdHasher {
    h: u64,
}

impl IdHasher {
    #[inline]
    fn add(&mut self, x: u64) {
        self.h = (self.h ^ x)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            self.add(u64::from_le_bytes(a));
        }
        let rest = chunks.remainder();
        let mut a = [0u8; 8];
        a[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(a) ^ ((rest.len() as u64) << 59));
    }
    fn write_u8(&mut self, x: u8) {
        self.add(x as u64)
    }
    fn write_u32(&mut self, x: u32) {
        self.add(x as u64)
    }
    fn write_u64(&mut self, x: u64) {
        self.add(x)
    }
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64)
    }
    fn write_isize(&mut self, x: isize) {
        self.add(x as u64)
    }
    fn finish(&self) -> u64 {
        // SplitMix64's finaliser: every input bit reaches the low bits the
        // table uses.
        let mut z = self.h;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// "No entry" in the compact index vectors.
pub const NONE: u32 = u32::MAX;

/// Labels in force, in the order pi's `labelsById` map holds them.
#[derive(Debug, Default, Clone)]
pub struct Labels {
    slots: Vec<Option<LabelSlot>>,
    by_target: IdMap<usize>,
}

/// One label in force.
#[derive(Debug, Clone)]
pub struct LabelSlot {
    pub target: Id,
    pub label: Box<str>,
    /// The entry (index) of the label entry that set it.
    pub set_by: usize,
}

impl Labels {
    fn set(&mut self, target: Id, label: Box<str>, set_by: usize) {
        match self.by_target.get(&target) {
            // Map.set on an existing key keeps its place.
            Some(&slot) => {
                if let Some(s) = self.slots[slot].as_mut() {
                    s.label = label;
                    s.set_by = set_by;
                }
            }
            None => {
                self.by_target.insert(target.clone(), self.slots.len());
                self.slots.push(Some(LabelSlot {
                    target,
                    label,
                    set_by,
                }));
            }
        }
    }

    fn delete(&mut self, target: &Id) {
        if let Some(slot) = self.by_target.remove(target) {
            self.slots[slot] = None;
        }
    }

    /// The label on `id`, if any.
    pub fn get(&self, id: &Id) -> Option<&LabelSlot> {
        self.by_target.get(id).and_then(|&s| self.slots[s].as_ref())
    }

    /// Every label in force, in pi's map order.
    pub fn iter(&self) -> impl Iterator<Item = &LabelSlot> {
        self.slots.iter().flatten()
    }

    pub fn is_empty(&self) -> bool {
        self.by_target.is_empty()
    }
}

/// Entry indices by id, in little memory: pi's ids (8 hex digits) sit in
/// an open-addressed table, 8 bytes a slot (the id's 4 bytes beside the
/// entry index, so that a probe reads no entry: one cache line per id
/// where the entries would cost a miss per slot passed), the rare other
/// ids in an [`IdMap`].
#[derive(Debug, Default, Clone)]
struct IdTable {
    /// Linear probing; a slot is `id << 32 | entry index`, empty when its
    /// index is [`NONE`]. Never fuller than 3/4 (so a probe always ends).
    slots: Vec<u64>,
    hex: usize,
    other: IdMap<u32>,
    hash: IdHash,
}

/// An empty slot of [`IdTable`].
const EMPTY: u64 = NONE as u64;

/// The entry index of an [`IdTable`] slot ([`NONE`] when empty).
#[inline]
fn slot_entry(slot: u64) -> u32 {
    slot as u32
}

/// The id (8 hex digits) of a full [`IdTable`] slot.
#[inline]
fn slot_key(slot: u64) -> u32 {
    (slot >> 32) as u32
}

impl IdTable {
    /// An empty table with room for `n` ids.
    pub fn with_capacity(n: usize) -> IdTable {
        let size = n.saturating_add(n / 3).saturating_add(1);
        IdTable {
            slots: vec![EMPTY; size],
            ..IdTable::default()
        }
    }

    #[inline]
    fn home(&self, key: u32) -> usize {
        let h = self.hash.hash_one(key);
        ((h as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// Ask the processor to bring in the slot where a probe for `key`
    /// starts (the table is larger than the caches: each probe is a miss,
    /// which a prefetch some ids ahead hides).
    #[inline]
    fn prefetch(&self, key: u32) {
        #[cfg(target_arch = "x86_64")]
        if let Some(slot) = self.slots.get(self.home(key)) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch reads nothing and faults on nothing; the
            // address is a slot of the table anyway. SSE is part of x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(slot).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The slot holding `key`, or the empty slot where it would go.
    #[inline]
    fn find(&self, key: u32) -> usize {
        let n = self.slots.len();
        let mut at = self.home(key);
        loop {
            let v = self.slots[at];
            if slot_entry(v) == NONE || slot_key(v) == key {
                return at;
            }
            at += 1;
            if at == n {
                at = 0;
            }
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let size = (old.len().max(4)).saturating_mul(2);
        self.slots = vec![EMPTY; size];
        for v in old {
            if slot_entry(v) != NONE {
                let at = self.find(slot_key(v));
                self.slots[at] = v;
            }
        }
    }

    /// Map the id of entry `i` of `entries` to `i`; the entry it named
    /// before, if any. Nothing for an entry without an id (or no entry
    /// `i`). A table must always be used with the same entries.
    pub fn insert(&mut self, entries: &Entries, i: usize) -> Option<u32> {
        if i >= entries.len() {
            return None;
        }
        let value = u32::try_from(i).ok().filter(|&v| v != NONE)?;
        if let Some(key) = entries.hex_id(i) {
            if (self.hex + 1) * 4 > self.slots.len() * 3 {
                self.grow();
            }
            let at = self.find(key);
            let prev =
                std::mem::replace(&mut self.slots[at], u64::from(key) << 32 | u64::from(value));
            match slot_entry(prev) {
                NONE => {
                    self.hex += 1;
                    None
                }
                p => Some(p),
            }
        } else {
            let id = entries.id(i)?;
            self.other.insert(id, value)
        }
    }

    /// The entry `id` names.
    pub fn get(&self, id: &Id) -> Option<u32> {
        match id {
            Id::Hex8(key) => {
                if self.slots.is_empty() {
                    return None;
                }
                match slot_entry(self.slots[self.find(*key)]) {
                    NONE => None,
                    v => Some(v),
                }
            }
            Id::Other(_) | Id::Value(_) => self.other.get(id).copied(),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.hex + self.other.len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every id and its entry, in no particular order.
    pub fn iter<'a>(&'a self, entries: &'a Entries) -> impl Iterator<Item = (Id, u32)> + 'a {
        self.slots
            .iter()
            .map(|&v| slot_entry(v))
            .filter(|&v| v != NONE)
            .filter_map(|v| entries.id(v as usize).map(|id| (id, v)))
            .chain(self.other.iter().map(|(k, &v)| (k.clone(), v)))
    }
}

/// Lookups over the entries of a session (which it shares with the
/// session: see [`Index::entries`]).
#[derive(Debug, Default)]
pub struct Index {
    entries: Arc<Entries>,
    /// Entry index by id; when ids repeat, the later line wins (as in pi).
    by_id: IdTable,
    pub labels: Labels,
    /// The session name: the last `session_info` decides (empty = none).
    pub name: Option<Box<str>>,
    /// pi's leaf after opening: the last entry (second headers aside).
    pub leaf: Option<usize>,
    /// No id is on two entries: an entry's id names that entry.
    unique_ids: bool,
}

impl Index {
    /// Build the index over `entries`; duplicate ids and parents naming no
    /// entry are reported in `warnings`. `extras` are the label and
    /// session_info fields of the entries ([`Extra::from_object`]), by entry
    /// index, in file order. Each entry's parent is resolved here (pi's
    /// `getBranch` semantics), and kept in the entry
    /// ([`Entries::parent_index`]).
    pub fn build(
        file: &str,
        mut entries: Entries,
        extras: &[(u32, Extra)],
        warnings: &mut Vec<Diagnostic>,
    ) -> Index {
        let mut by_id = IdTable::with_capacity(entries.len());
        let mut leaf = None;
        let mut unique = true;
        // How many entries ahead the table slot is fetched.
        const AHEAD: usize = 16;
        for (i, e) in entries.iter().enumerate() {
            if let Some(key) = entries.hex_id(i + AHEAD) {
                by_id.prefetch(key);
            }
            if e.ty() == EntryType::Session {
                continue;
            }
            leaf = Some(i);
            if let Some(prev) = by_id.insert(&entries, i) {
                unique = false;
                if let Some(id) = entries.id(i) {
                    warnings.push(Diagnostic::new(
                        file,
                        Some(e.line()),
                        format!(
                            "duplicate id {id} (also on line {}); this later line wins, as in pi",
                            entries[prev as usize].line()
                        ),
                    ));
                }
            }
        }
        let mut labels = Labels::default();
        let mut name = None;
        for (i, extra) in extras {
            let i = *i as usize;
            if entries.get(i).is_none_or(|e| e.ty() == EntryType::Session) {
                continue;
            }
            match extra {
                Extra::Label(change) => {
                    if let Some(t) = &change.target {
                        match &change.label {
                            Some(l) => labels.set(t.clone(), l.clone(), i),
                            None => labels.delete(t),
                        }
                    }
                }
                Extra::SessionInfo(n) => {
                    name = (**n).clone().filter(|n| !n.is_empty());
                }
                Extra::None => {}
            }
        }
        for i in 0..entries.len() {
            if entries[i].ty() == EntryType::Session {
                continue;
            }
            // Most entries follow their parent: when every id is unique the
            // line before, if it has the id, is the entry the table would give.
            if unique
                && i > 0
                && entries[i - 1].ty() != EntryType::Session
                && entries.parent_names(i, i - 1)
            {
                entries.set_parent_index(i, (i - 1) as u32);
                continue;
            }
            if let Some(pid) = entries.parent_id(i) {
                match by_id.get(&pid) {
                    Some(p) => entries.set_parent_index(i, p),
                    None => warnings.push(Diagnostic::new(
                        file,
                        Some(entries[i].line()),
                        format!(
                            "entry {} names parent {pid}, which is not in the file; its path starts here",
                            entries.id_string(i)
                        ),
                    )),
                }
            }
        }
        Index {
            entries: Arc::new(entries),
            by_id,
            labels,
            name,
            leaf,
            unique_ids: unique,
        }
    }

    /// Whether no id is on two entries (then [`Index::get`] of an entry's
    /// own id is that entry).
    pub fn ids_unique(&self) -> bool {
        self.unique_ids
    }

    /// The entries the index is over.
    pub fn entries(&self) -> &Arc<Entries> {
        &self.entries
    }

    /// The entry index of `id`.
    pub fn get(&self, id: &Id) -> Option<usize> {
        self.by_id.get(id).map(|i| i as usize)
    }

    /// The parent entry of entry `i` (None for a root, a dangling parent or
    /// a second header).
    pub fn parent_of(&self, i: usize) -> Option<usize> {
        self.entries.parent_index(i)
    }

    /// Every id and the entry it names, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = (Id, usize)> + '_ {
        self.by_id
            .iter(&self.entries)
            .map(|(id, i)| (id, i as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries whose ids are these (None: no id).
    fn entries_with(ids: &[Option<String>]) -> Entries {
        let mut entries = Entries::new();
        for (k, id) in ids.iter().enumerate() {
            let line = match id {
                Some(id) => format!(r#"{{"type":"message","id":"{id}"}}"#),
                None => r#"{"type":"message"}"#.to_string(),
            };
            let obj = crate::json::Object::parse_line(line.as_bytes())
                .unwrap()
                .unwrap();
            entries.push_object(&obj, k as u64 + 2, 0, 1).unwrap();
        }
        entries
    }

    #[test]
    fn id_table_finds_what_it_holds() {
        let hex = |k: u32| format!("{:08x}", k.wrapping_mul(2654435761));
        let mut ids: Vec<Option<String>> = (0..3000).map(|k| Some(hex(k))).collect();
        ids.push(Some("not-hex".into())); // 3000
        ids.push(Some("not-hex".into())); // 3001
        ids.push(Some(hex(5))); // 3002
        ids.push(None); // 3003
        let entries = entries_with(&ids);
        // From a full-size table, and from small ones that must grow.
        for cap in [None, Some(0), Some(1), Some(5), Some(1000)] {
            let mut t = match cap {
                None => IdTable::with_capacity(entries.len()),
                Some(c) => IdTable {
                    slots: vec![EMPTY; c],
                    ..IdTable::default()
                },
            };
            assert_eq!(t.get(&Id::new("00000001")), None);
            for k in 0..3000usize {
                assert_eq!(t.insert(&entries, k), None);
            }
            assert_eq!(t.insert(&entries, 3000), None);
            assert_eq!(t.insert(&entries, 3001), Some(3000));
            assert_eq!(t.insert(&entries, 3002), Some(5));
            assert_eq!(t.insert(&entries, 3003), None);
            assert_eq!(t.insert(&entries, 99999), None);
            assert_eq!(t.get(&Id::new(&hex(5))), Some(3002));
            assert_eq!(t.get(&Id::new("not-hex")), Some(3001));
            assert_eq!(t.len(), 3001);
            for k in (0..3000u32).filter(|&k| k != 5) {
                assert_eq!(t.get(&Id::new(&hex(k))), Some(k));
            }
            assert_eq!(t.get(&Id::new("ffffffff")), None);
            assert_eq!(t.get(&Id::new("other")), None);
            assert_eq!(t.iter(&entries).count(), 3001);
            assert!(t
                .iter(&entries)
                .any(|(id, v)| id == Id::new("not-hex") && v == 3001));
            assert!(t
                .iter(&entries)
                .all(|(id, v)| entries.id(v as usize) == Some(id)));
        }
        // An empty table finds nothing.
        let t = IdTable::default();
        assert_eq!(t.get(&Id::new("00000000")), None);
        assert!(t.is_empty());
    }
}

#[cfg(test)]
mod parent_tests {
    use crate::entry::EntryType;
    use crate::session::{ReadOptions, Session};

    /// Parents as pi finds them: the last non-header entry whose id is the
    /// (non-empty) parentId, found naively.
    #[test]
    fn parents_are_the_last_entry_with_the_id() {
        let ids = ["00000001", "00000002", "abc", "", "00000003"];
        let mut x = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut rand = move |n: usize| (x() % n as u64) as usize;
        for _ in 0..2000 {
            let mut text = String::from(
                r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#,
            );
            let n = 1 + rand(8);
            let mut lines: Vec<(bool, String, Option<String>)> = Vec::new();
            for _ in 0..n {
                let header = rand(8) == 0;
                let id = ids[rand(ids.len())].to_string();
                let parent = (rand(5) > 0).then(|| ids[rand(ids.len())].to_string());
                let ty = if header { "session" } else { "message" };
                let p = parent
                    .as_ref()
                    .map_or("null".to_string(), |p| format!("\"{p}\""));
                text.push_str(&format!(
                    "\n{{\"type\":\"{ty}\",\"id\":\"{id}\",\"parentId\":{p}}}"
                ));
                lines.push((header, id, parent));
            }
            let s = Session::from_bytes("t", text.into_bytes(), ReadOptions::default()).unwrap();
            for (i, (header, _, parent)) in lines.iter().enumerate() {
                assert_eq!(s.entries[i].ty() == EntryType::Session, *header);
                if *header {
                    continue;
                }
                let want = parent
                    .as_ref()
                    .filter(|p| !p.is_empty())
                    .and_then(|p| lines.iter().rposition(|(h, id, _)| !h && id == p));
                assert_eq!(s.index.parent_of(i), want, "entry {i} of {lines:?}");
            }
        }
    }
}

//! Two-shuffle classes of the exact searches (`search::exact`, `search::exact::parallel`;
//! the argument is in `search::exact`'s module doc).
//!
//! Invariants: a class is open on one search stack from the frame that entered its key
//! until that frame is popped; classes open and close in stack order, so the members
//! entered of every open class are one run of `members` each; a member is entered once
//! (a shuffle move to a recorded member is `Seen`); a move of a card to a column-1 gap
//! is kept by the first frame of its class that has it and left out by the others
//! ([`OpenClasses::claim`]), since from every member it leads into one same class.

use crate::card::{col_of, row_of, MAX_SUITS};
use crate::moves::{Move, MoveList};
use crate::position::{is_shuffle_move, Position, MAX_MOVES};
use crate::search::exact::options::ExactOptions;
use crate::search::exact::settled::{settling_moves_first, SettledSearch};
use crate::variant::Variant;
use crate::zobrist::{self, Key};

/// A frame outside any Two-shuffle class.
pub(crate) const NO_CLASS: u32 = u32::MAX;

/// The key of `position`'s Two-shuffle class when the search stores classes, the rules
/// are `common` (in `basic` a column-0 gap takes only its row's Two) and it has one
/// (see the module doc). Both searches, on one thread or several, decide through this.
#[inline(always)]
pub(crate) fn class_key(
    position: &Position,
    variant: Variant,
    options: ExactOptions,
) -> Option<Key> {
    if options.shuffle_classes && variant == Variant::Common {
        position.shuffle_class_key()
    } else {
        None
    }
}

/// What every frame of one exact search is built under: the rules, the search's options
/// and the search that decides its settled children (on its thread), if any. Fixed for
/// the whole search.
#[derive(Clone, Copy)]
pub(crate) struct FrameRules<'a> {
    pub variant: Variant,
    pub options: ExactOptions,
    pub settled: Option<&'a SettledSearch>,
}

/// How a frame was entered: by `via` from the frame below (unused at a root), in the
/// Two-shuffle class `class` of its stack's open classes (or [`NO_CLASS`]: also a
/// position with a class that a thread took over from another, see
/// `search::exact::parallel`), which it opened if `opens_class` (its key is the class's
/// in the visited set). `class_key` is [`class_key`] of the frame's position, whatever
/// `class` says: the keys of most children follow from it by one move's delta
/// ([`keys_after`]).
#[derive(Clone, Copy)]
pub(crate) struct FrameEntry {
    pub via: Move,
    pub class: u32,
    pub opens_class: bool,
    pub class_key: Option<Key>,
}

impl FrameEntry {
    /// The entry of a frame at the bottom of a stack (the root, or work taken over from
    /// another thread): no move, in `class` (opened by it unless [`NO_CLASS`]), and
    /// `class_key`, [`class_key`] of its position.
    pub fn root(class: u32, class_key: Option<Key>) -> FrameEntry {
        FrameEntry {
            via: Move::default(),
            class,
            opens_class: class != NO_CLASS,
            class_key,
        }
    }
}

/// The moves a frame of an exact search tries from `position`, entered as `entry`
/// (its class is one of `classes`), under `rules`: its legal
/// moves, less those a member leaves to the frame that opened its class (they lead into
/// classes every member reaches, `Position::leads_to_a_shared_class`) and the moves to
/// a column-1 gap that an earlier frame of its class claimed ([`OpenClasses::claim`]),
/// settling moves first with their buckets loading in the settled search
/// (`settling_moves_first`), then the moves that extend a row's run ([`runs_next`]).
/// `prefetch` is handed the visited-set key of every other child that will be looked
/// up, to start loading its slot. The list is built in `moves` (a stack slot: no
/// copy). Both searches, on one thread or several, build frames through this
/// (`ExactStack::push_expanded`).
#[inline(always)]
pub(crate) fn frame_moves(
    position: &Position,
    entry: FrameEntry,
    classes: &mut OpenClasses,
    rules: FrameRules,
    moves: &mut MoveList<MAX_MOVES>,
    mut prefetch: impl FnMut(Key),
) {
    let FrameEntry {
        class, opens_class, ..
    } = entry;
    let FrameRules {
        variant, options, ..
    } = rules;
    position.legal_moves(variant, moves);
    if class != NO_CLASS {
        let gaps = position.column0_gaps();
        moves.retain(|m| {
            (opens_class || !position.leads_to_a_shared_class(m, gaps)) && classes.claim(class, m)
        });
    }
    let settling = settling_moves_first(position, moves, rules.settled, |m| {
        if let Some(key) = lookup_key_after(position, entry, m, variant, options) {
            prefetch(key);
        }
    });
    if rules.settled.is_some() {
        runs_next(position, moves, settling);
    }
}

/// Puts the moves that extend a row's run from column 0 (`Position::extends_run`)
/// right after the first `settling` moves (the settling move), keeping both groups in
/// order. A verdict search reaches some wins far sooner along such moves (deal 124 of
/// `common` 4x13: 7 s instead of 58 s on two threads); any order tries the same moves.
#[inline(always)]
fn runs_next(position: &Position, moves: &mut MoveList<MAX_MOVES>, settling: usize) {
    let list = moves.as_mut_slice();
    let mut front = settling;
    for i in settling..list.len() {
        if position.extends_run(list[i]) {
            list[front..=i].rotate_right(1);
            front += 1;
        }
    }
}

/// The key under which [`OpenClasses::admit`] will look up the child reached by `m` from
/// `position`, entered as `entry`: as [`keys_after`]; `None` for a shuffle move inside
/// an open class, which does not touch the visited set. The exact searches use it to
/// start loading the right slot of the set when they push a frame.
#[inline(always)]
fn lookup_key_after(
    position: &Position,
    entry: FrameEntry,
    m: Move,
    variant: Variant,
    options: ExactOptions,
) -> Option<Key> {
    if entry.class != NO_CLASS && is_shuffle_move(m) {
        return None;
    }
    Some(keys_after(position, entry.class_key, m, variant, options).0)
}

/// The visited-set key of the child reached by the legal move `m` from `position`, and
/// its class key ([`class_key`] of the child), computed without playing `m`; `own` is
/// `position`'s class key. A move that neither leaves nor enters column 0 keeps
/// column 0 as it is, so the child is in a class exactly when `position` is, and its
/// class key is `own` changed by the move's Zobrist delta (the class key is the key of
/// the member whose Twos stand in suit order, `position::shuffle`, and the move
/// changes the same two terms in every member); other moves compute it from the cells
/// (`Position::shuffle_class_key_after`). Debug builds check both against the played
/// child (`OpenClasses::debug_check`).
#[inline(always)]
pub(crate) fn keys_after(
    position: &Position,
    own: Option<Key>,
    m: Move,
    variant: Variant,
    options: ExactOptions,
) -> (Key, Option<Key>) {
    if !(options.shuffle_classes && variant == Variant::Common) {
        return (position.key_after(m), None);
    }
    let class = if col_of(m.from) != 0 && col_of(m.to) != 0 {
        own.map(|key| key ^ zobrist::move_delta(m.card, m.from, m.to))
    } else {
        position.shuffle_class_key_after(m)
    };
    (class.unwrap_or_else(|| position.key_after(m)), class)
}

/// The Two-shuffle classes open on one search stack (see the module doc): the keys of
/// the members entered so far of each, one class after the other, since classes open
/// and close in stack order.
#[derive(Default)]
pub(crate) struct OpenClasses {
    members: Vec<Key>,
    /// Where each open class's members start in `members`.
    starts: Vec<usize>,
    /// For each open class, the moves to column-1 gaps claimed by its frames: bit
    /// `row * MAX_SUITS + suit` for the move of that suit's card to that row's column 1.
    claimed: Vec<u64>,
}

/// The claim bit of a move to a column-1 gap (see [`OpenClasses::claim`]), or 0.
#[inline(always)]
fn column1_claim(m: Move) -> u64 {
    if col_of(m.to) != 1 {
        return 0;
    }
    1 << (row_of(m.to) * MAX_SUITS + usize::from(m.card.suit()))
}

impl OpenClasses {
    /// Closes every class.
    pub fn clear(&mut self) {
        self.members.clear();
        self.starts.clear();
        self.claimed.clear();
    }

    /// Whether a frame of the open class `class` keeps `m` in its moves: any move but one
    /// into a column-1 gap, and such a move only if no earlier frame of the class kept
    /// the same card's move to the same cell (it is claimed now). Why the skipped child
    /// is not lost: the members of a class agree outside column 0, so that move is the
    /// same in each member that has it (the successor of the card at the row's column 0,
    /// the same card, from the same cell) and their children agree outside column 0 and
    /// have the same column-0 gap-or-Two cells and Twos (column 0 keeps its gap and Two):
    /// one class, the one the claiming frame's move enters or finds in the set, whose
    /// every member is then entered. The claiming frame is of this search's stack and
    /// tries its moves (or hands them to another thread, which tries them) unless the
    /// whole search stops.
    #[inline(always)]
    pub fn claim(&mut self, class: u32, m: Move) -> bool {
        let bit = column1_claim(m);
        if bit == 0 {
            return true;
        }
        let claimed = &mut self.claimed[class as usize];
        let fresh = *claimed & bit == 0;
        *claimed |= bit;
        fresh
    }

    /// Opens the class of `position`, just entered with the class key `class_key`, if
    /// it has one: returns its index, or [`NO_CLASS`].
    pub fn open(&mut self, position: &Position, class_key: Option<Key>) -> u32 {
        if class_key.is_none() {
            return NO_CLASS;
        }
        self.starts.push(self.members.len());
        self.claimed.push(0);
        self.members.push(position.key());
        (self.starts.len() - 1) as u32
    }

    /// How the child reached by `m` from `parent`, entered as `entry`, is entered: a
    /// shuffle move from an open class leads to another member of it, recorded here (or
    /// already entered); any other child goes through the visited set under its class
    /// key, if it has one, else its own key ([`keys_after`]). The child is not played:
    /// most children are found entered before, and playing one copies a whole position
    /// (`perf` put 5% of a two-thread exact search in that copy). Both searches, on one
    /// thread or several, decide through this.
    #[inline(always)]
    pub fn admit(
        &mut self,
        entry: FrameEntry,
        m: Move,
        parent: &Position,
        variant: Variant,
        options: ExactOptions,
    ) -> Admit {
        if entry.class == NO_CLASS || !is_shuffle_move(m) {
            let (key, class) = keys_after(parent, entry.class_key, m, variant, options);
            return Admit::Keyed(key, class);
        }
        let key = parent.key_after(m);
        if self.members[self.starts[entry.class as usize]..].contains(&key) {
            return Admit::Seen;
        }
        self.members.push(key);
        Admit::Member(entry.class)
    }

    /// How the child just played by `m` from a frame entered as `from` is entered,
    /// after [`OpenClasses::admit`] said `admitted` of it (a new member, or a new key):
    /// a new key opens the child's class, if it has one. Both searches, on one thread or
    /// several, build the child's frame entry through this.
    #[inline(always)]
    pub fn enter(
        &mut self,
        admitted: Admit,
        m: Move,
        from: FrameEntry,
        child: &Position,
        variant: Variant,
        options: ExactOptions,
    ) -> FrameEntry {
        let entry = match admitted {
            // A member of a class this stack opened (see `search::exact`).
            Admit::Member(class) => FrameEntry {
                via: m,
                class,
                opens_class: false,
                class_key: from.class_key,
            },
            Admit::Keyed(_, class_key) => {
                let class = self.open(child, class_key);
                FrameEntry {
                    via: m,
                    class,
                    opens_class: class != NO_CLASS,
                    class_key,
                }
            }
            Admit::Seen => unreachable!("a child seen before is not played"),
        };
        self.debug_check(admitted, entry.class_key, child, variant, options);
        entry
    }

    /// In debug builds, checks that what [`OpenClasses::admit`] said of a child, without
    /// playing it, is what the played `child` has: its key as a new member, its class
    /// key and class as a keyed child; and that `recorded`, what its frame records, is
    /// its class key.
    #[inline(always)]
    fn debug_check(
        &self,
        admitted: Admit,
        recorded: Option<Key>,
        child: &Position,
        variant: Variant,
        options: ExactOptions,
    ) {
        if cfg!(debug_assertions) {
            let class = class_key(child, variant, options);
            assert_eq!(recorded, class, "a frame's class key");
            match admitted {
                Admit::Seen => {}
                Admit::Member(_) => assert_eq!(self.members.last(), Some(&child.key())),
                Admit::Keyed(key, keyed) => {
                    assert_eq!(keyed, class);
                    assert_eq!(key, class.unwrap_or(child.key()));
                }
            }
        }
    }

    /// Closes the last open class.
    pub fn close_last(&mut self) {
        if let Some(start) = self.starts.pop() {
            self.members.truncate(start);
            self.claimed.pop();
        }
    }
}

/// What [`OpenClasses::admit`] says of a child.
#[derive(Clone, Copy)]
pub(crate) enum Admit {
    /// A member of that open class, entered before.
    Seen,
    /// A new member of that open class, now recorded: enter it, with no key of its own.
    Member(u32),
    /// Insert this key in the visited set; the child's class key, if it has one (the
    /// child opens its class when the key is new).
    Keyed(Key, Option<Key>),
}

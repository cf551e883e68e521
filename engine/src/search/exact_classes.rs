//! Two-shuffle classes of the exact searches (`search::exact`, `search::exact_parallel`;
//! the argument is in `search::exact`'s module doc).
//!
//! Invariants: a class is open on one search stack from the frame that entered its key
//! until that frame is popped; classes open and close in stack order, so the members
//! entered of every open class are one run of `members` each; a member is entered once
//! (a shuffle move to a recorded member is `Seen`).

use crate::moves::{Move, MoveList};
use crate::position::{is_shuffle_move, Position, MAX_MOVES};
use crate::search::exact::ExactOptions;
use crate::search::exact_settled::{settling_moves_first, SettledSearch};
use crate::variant::Variant;
use crate::zobrist::Key;

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

/// The moves a frame of an exact search tries from `position`, entered in the class
/// `class` (or [`NO_CLASS`]), which it opened if `opens_class`: its legal moves, less
/// those a member leaves to the frame that opened its class (they lead into classes
/// every member reaches, `Position::leads_to_a_shared_class`), settling moves first
/// with their buckets loading in `settled` (`settling_moves_first`). `prefetch` is
/// handed the visited-set key of every other child that will be looked up, to start
/// loading its slot. The list is built in `moves` (a stack slot: no copy). Both
/// searches, on one thread or several, build frames through this
/// (`ExactStack::push_expanded`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn frame_moves(
    position: &Position,
    class: u32,
    opens_class: bool,
    variant: Variant,
    options: ExactOptions,
    settled: Option<&SettledSearch>,
    moves: &mut MoveList<MAX_MOVES>,
    mut prefetch: impl FnMut(Key),
) {
    position.legal_moves(variant, moves);
    if class != NO_CLASS && !opens_class {
        let gaps = position.column0_gaps();
        moves.retain(|m| !position.leads_to_a_shared_class(m, gaps));
    }
    settling_moves_first(position, moves, settled, |m| {
        if let Some(key) = lookup_key_after(position, class, m, variant, options) {
            prefetch(key);
        }
    });
}

/// The key under which [`OpenClasses::admit`] will look up the child reached by `m` from
/// `position`, a member of the class `from` (or [`NO_CLASS`]): its class key if it has
/// one, else its own key; `None` for a shuffle move inside an open class, which does not
/// touch the visited set. Computed without playing `m`, so that the searches can start
/// loading the right slot of the set when they push a frame.
#[inline(always)]
fn lookup_key_after(
    position: &Position,
    from: u32,
    m: Move,
    variant: Variant,
    options: ExactOptions,
) -> Option<Key> {
    if from != NO_CLASS && is_shuffle_move(m) {
        return None;
    }
    if options.shuffle_classes && variant == Variant::Common {
        if let Some(key) = position.shuffle_class_key_after(m) {
            return Some(key);
        }
    }
    Some(position.key_after(m))
}

/// The Two-shuffle classes open on one search stack (see the module doc): the keys of
/// the members entered so far of each, one class after the other, since classes open
/// and close in stack order.
#[derive(Default)]
pub(crate) struct OpenClasses {
    members: Vec<Key>,
    /// Where each open class's members start in `members`.
    starts: Vec<usize>,
}

impl OpenClasses {
    /// Closes every class.
    pub fn clear(&mut self) {
        self.members.clear();
        self.starts.clear();
    }

    /// Opens the class of `position`, just entered with the class key `class_key`, if
    /// it has one: returns its index, or [`NO_CLASS`].
    pub fn open(&mut self, position: &Position, class_key: Option<Key>) -> u32 {
        if class_key.is_none() {
            return NO_CLASS;
        }
        self.starts.push(self.members.len());
        self.members.push(position.key());
        (self.starts.len() - 1) as u32
    }

    /// How `child`, reached by `m` from a position of the class `from` (or
    /// [`NO_CLASS`]), is entered: a shuffle move from an open class leads to another
    /// member of it, recorded here (or already entered); any other child goes through
    /// the visited set under its class key, if it has one, else its own key. Both
    /// searches, on one thread or several, decide through this.
    pub fn admit(
        &mut self,
        from: u32,
        m: Move,
        child: &Position,
        variant: Variant,
        options: ExactOptions,
    ) -> Admit {
        if from == NO_CLASS || !is_shuffle_move(m) {
            let class = class_key(child, variant, options);
            return Admit::Keyed(class.unwrap_or(child.key()), class);
        }
        let key = child.key();
        if self.members[self.starts[from as usize]..].contains(&key) {
            return Admit::Seen;
        }
        self.members.push(key);
        Admit::Member(from)
    }

    /// Closes the last open class.
    pub fn close_last(&mut self) {
        if let Some(start) = self.starts.pop() {
            self.members.truncate(start);
        }
    }
}

/// What [`OpenClasses::admit`] says of a child.
pub(crate) enum Admit {
    /// A member of that open class, entered before.
    Seen,
    /// A new member of that open class, now recorded: enter it, with no key of its own.
    Member(u32),
    /// Insert this key in the visited set; the child's class key, if it has one (the
    /// child opens its class when the key is new).
    Keyed(Key, Option<Key>),
}

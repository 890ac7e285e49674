import Foundation

/// The clocks of one synced object's edits, under typed keys: each property's latest edit, and —
/// for a to-many that travels member by member (a many-to-many, or a to-many without an
/// inverse) — each member's joining and leaving. Every merge goes through one rule here, "the
/// later clock wins" (``takeIfLater(_:for:)``).
///
/// Stored in ``SyncedObject/clocks`` and sent in records as before: a dictionary keyed by the
/// property's name, or by `name+UUID` and `name-UUID` for a member's edit (no property name holds
/// `+` or `-`). A member is in the relationship when its later edit is a joining, so two devices
/// adding different members both keep theirs, and a member removed after it was added stays out.
struct SyncClocks {
    /// What a clock is the clock of.
    enum Key: Hashable {
        /// The latest edit of an attribute or a to-one (or a to-many that travels whole).
        case property(String)
        /// `member` joining (`joined`) or leaving the to-many `property`.
        case member(String, UUID, joined: Bool)

        /// How the key is stored and sent.
        var spelling: String {
            switch self {
            case .property(let name): name
            case .member(let property, let member, let joined): property + (joined ? "+" : "-") + member.uuidString
            }
        }
    }

    /// The clocks by their keys' spelling, as stored and sent.
    private(set) var spelled: [String: SyncClock]

    init(_ spelled: [String: SyncClock] = [:]) {
        self.spelled = spelled
    }

    subscript(key: Key) -> SyncClock? { spelled[key.spelling] }

    /// Whether `clock` is later than the one held for `key`, or none is.
    func isLater(_ clock: SyncClock, for key: Key) -> Bool {
        Self.isLater(clock, than: spelled[key.spelling])
    }

    /// The rule: an edit wins over the one held when its clock is later, or nothing is held
    /// (the default conflict resolver's ``SyncConflict/laterEdit`` asks it too).
    static func isLater(_ clock: SyncClock, than held: SyncClock?) -> Bool {
        held.map { $0 < clock } ?? true
    }

    /// Holds `clock` for `key` if it is later than the one held (or none is); whether it did.
    @discardableResult
    mutating func takeIfLater(_ clock: SyncClock, for key: Key) -> Bool {
        takeIfLater(clock, spelled: key.spelling)
    }

    /// Each of `other`'s clocks that is later than this one's for the same key
    /// (`including`: which keys, by spelling).
    mutating func takeLater(of other: SyncClocks, including: (String) -> Bool = { _ in true }) {
        for (spelling, clock) in other.spelled where including(spelling) { takeIfLater(clock, spelled: spelling) }
    }

    private mutating func takeIfLater(_ clock: SyncClock, spelled spelling: String) -> Bool {
        guard Self.isLater(clock, than: spelled[spelling]) else { return false }
        spelled[spelling] = clock
        return true
    }

    /// Holds `clock` for `key` whatever is held: an edit made here now, or the version a resolver
    /// chose (the later clock does not decide there).
    mutating func set(_ clock: SyncClock, for key: Key) {
        spelled[key.spelling] = clock
    }

    // MARK: Members

    /// The member edits of `property`, by the key's part after the property name (`+UUID`,
    /// `-UUID`): what a record carries.
    func edits(of property: String) -> [String: SyncClock] {
        var edits: [String: SyncClock] = [:]
        for (key, clock) in spelled where key.count > property.count && key.hasPrefix(property) {
            let rest = key.dropFirst(property.count)
            guard rest.first == "+" || rest.first == "-", UUID(uuidString: String(rest.dropFirst())) != nil else { continue }
            edits[String(rest)] = clock
        }
        return edits
    }

    /// A record's member edit (`+UUID` or `-UUID`): the member and whether it joins.
    static func parseEdit(_ edit: String) -> (member: UUID, joined: Bool)? {
        guard let sign = edit.first, sign == "+" || sign == "-", let member = UUID(uuidString: String(edit.dropFirst())) else { return nil }
        return (member, sign == "+")
    }

    /// Whether `member` is in `property` by its edits (the later of its joining and leaving;
    /// neither: not in it).
    func isMember(_ member: UUID, of property: String) -> Bool {
        guard let joined = self[.member(property, member, joined: true)] else { return false }
        guard let left = self[.member(property, member, joined: false)] else { return true }
        return joined > left
    }

    /// The members `property` has by its edits.
    func members(of property: String) -> Set<UUID> {
        var members = Set<UUID>()
        for edit in edits(of: property).keys {
            if let (member, joined) = Self.parseEdit(edit), joined, isMember(member, of: property) { members.insert(member) }
        }
        return members
    }
}

extension SyncedObject {
    /// ``clocks`` under typed keys. Read once, changed, and set back once: each set is a change
    /// of the model.
    var syncClocks: SyncClocks {
        get { SyncClocks(clocks) }
        set { clocks = newValue.spelled }
    }
}

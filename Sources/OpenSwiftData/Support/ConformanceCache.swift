/// Answers "does values of this dynamic type conform to the protocol?" once per type.
///
/// A cast from `Any` to a protocol existential asks the runtime's conformance lookup. When it
/// misses its own cache, which on Linux it keeps doing for these casts, it scans every conformance
/// record in the process: about 100,000 instructions once Foundation is loaded. Predicate
/// translation asks for every node of every predicate, so the answers are kept here by type.
final class ConformanceCache<Answer>: @unchecked Sendable {
    private let answers = Locked<[ObjectIdentifier: Answer?]>([:])
    private let lookUp: (Any.Type) -> Answer?

    /// `lookUp` is the cast itself (for example `{ $0 as? any P.Type }`), run once per type.
    init(_ lookUp: @escaping (Any.Type) -> Answer?) {
        self.lookUp = lookUp
    }

    func answer(for type: Any.Type) -> Answer? {
        let key = ObjectIdentifier(type)
        if let known = answers.withLock({ $0[key] }) { return known }
        let answer = lookUp(type)
        answers.withLock { $0[key] = answer }
        return answer
    }
}

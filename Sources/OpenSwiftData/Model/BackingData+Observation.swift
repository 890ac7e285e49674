import Observation

/// Observation: the generated accessors report reads and writes through the model's registrar,
/// which is made on the model's first read (see ``BackingData/registrar``).
extension BackingData {
    /// The observation registrar the generated accessors report reads and writes to, made now if
    /// nothing has read a property of the model yet.
    public var registrar: ObservationRegistrar {
        if !hasRegistrar { makeRegistrar() }
        return ownRegistrar
    }

    /// Out of line: the generated getters, which inline `_access`, keep only the test.
    @usableFromInline @inline(never)
    func makeRegistrar() {
        ownRegistrar = ObservationRegistrar()
        hasRegistrar = true
    }

    /// Reports a read to observers. Called by `@Model`'s generated getters.
    @inlinable
    public func _access<Owner: PersistentModel, Member>(_ owner: Owner, keyPath: KeyPath<Owner, Member>) {
        if !hasRegistrar { makeRegistrar() }
        ownRegistrar.access(owner, keyPath: keyPath)
    }

    /// Reports a write to observers around `body`. Called by `@Model`'s generated setters.
    ///
    /// A model nothing has read has no observer to tell: `body` just runs.
    @inlinable
    public func _withMutation<Owner: PersistentModel, Member, R>(of owner: Owner, keyPath: KeyPath<Owner, Member>, _ body: () throws -> R) rethrows -> R {
        guard hasRegistrar else { return try body() }
        return try ownRegistrar.withMutation(of: owner, keyPath: keyPath, body)
    }
}

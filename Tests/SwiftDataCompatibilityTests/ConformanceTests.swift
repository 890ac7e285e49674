import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// The protocol conformances SwiftData documents for its public types, which code relies on
/// (`context == container.mainContext`, identifiers in sets and as dictionary keys, versions
/// compared, errors matched): checked at compile time, one line per type.
@Suite struct ConformanceTests {
    private func equatable<T: Equatable>(_: T.Type) {}
    private func hashable<T: Hashable>(_: T.Type) {}
    private func comparable<T: Comparable>(_: T.Type) {}
    private func codable<T: Codable>(_: T.Type) {}
    private func sendable<T: Sendable>(_: T.Type) {}
    private func identifiable<T: Identifiable>(_: T.Type) {}
    private func described<T: CustomStringConvertible>(_: T.Type) {}

    @Test func publicTypesHaveSwiftDatasConformances() {
        equatable(ModelContext.self)
        equatable(ModelContainer.self); sendable(ModelContainer.self)
        hashable(ModelConfiguration.self); identifiable(ModelConfiguration.self); sendable(ModelConfiguration.self)
        hashable(PersistentIdentifier.self); comparable(PersistentIdentifier.self); codable(PersistentIdentifier.self); sendable(PersistentIdentifier.self)
        hashable(Schema.self); codable(Schema.self)
        hashable(Schema.Version.self); comparable(Schema.Version.self); codable(Schema.Version.self); sendable(Schema.Version.self); described(Schema.Version.self)
        hashable(SwiftDataError.self); sendable(SwiftDataError.self)
        hashable(DefaultHistoryToken.self); comparable(DefaultHistoryToken.self); codable(DefaultHistoryToken.self); sendable(DefaultHistoryToken.self)
        sendable(FetchDescriptor<Book>.self)
        hashable(Book.self); identifiable(Book.self)
        #expect(Book.ID.self == PersistentIdentifier.self)
    }
}

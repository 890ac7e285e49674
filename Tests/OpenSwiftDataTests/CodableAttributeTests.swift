import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// A type of someone else's (no `@Model`, no raw value): `@Attribute(.codable)` stores it whole.
struct Preferences: Codable, Equatable {
    var theme: String
    var recent: [String]
    var limits: [String: Int]
}

@Model final class Account {
    var name: String
    @Attribute(.codable) var preferences: Preferences
    @Attribute(.codable) var backup: Preferences?

    init(name: String, preferences: Preferences, backup: Preferences? = nil) {
        self.name = name
        self.preferences = preferences
        self.backup = backup
    }
}

/// One model in two releases: the `.codable` type is renamed and gains a field in the second.
enum ProfileRelease1 {
    struct Settings: Codable { var theme: String }
    @Model final class Profile {
        var name: String
        @Attribute(.codable) var settings: Settings
        init(name: String, settings: Settings) {
            self.name = name
            self.settings = settings
        }
    }
}

enum ProfileRelease2 {
    /// Renamed, and a field more: the schema records only that the property is `Codable`.
    struct DisplaySettings: Codable { var theme: String; var fontSize: Int? }
    @Model final class Profile {
        var name: String
        @Attribute(.codable) var settings: DisplaySettings
        init(name: String, settings: DisplaySettings) {
            self.name = name
            self.settings = settings
        }
    }
}

/// `@Attribute(.codable)` (iOS 27): a value stored in its own `Codable` form, read back whole,
/// not looked into by predicates, and free to change shape without a migration.
@Suite struct CodableAttributeTests {
    @Test(arguments: StoreKind.allCases)
    func valuesComeBackWhole(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Account.self])
        let context = store.context()
        let preferences = Preferences(theme: "dark", recent: ["a", "b"], limits: ["daily": 3])
        context.insert(Account(name: "ana", preferences: preferences))
        context.insert(Account(name: "bo", preferences: preferences, backup: Preferences(theme: "light", recent: [], limits: [:])))
        try context.save()

        let reopened = try store.reopen([Account.self])
        let accounts = try ModelContext(reopened).fetch(FetchDescriptor<Account>(sortBy: [SortDescriptor(\.name)]))
        #expect(accounts.map(\.preferences) == [preferences, preferences])
        #expect(accounts.map(\.backup?.theme) == [nil, "light"])
    }

    @Test func theSchemaSaysSo() throws {
        let entity = try #require(Schema([Account.self]).entities.first { $0.name == "Account" })
        let attributes = Dictionary(uniqueKeysWithValues: entity.attributes.map { ($0.name, $0) })
        #expect(attributes["preferences"]?.isCodable == true)
        #expect(attributes["backup"]?.isCodable == true)
        #expect(attributes["name"]?.isCodable == false)
        #expect(attributes["preferences"]?.options.contains(.codable) == true)
    }

    @Test(arguments: StoreKind.translatingPredicates)
    func predicatesCannotLookInside(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Account.self])
        let context = store.context()
        context.insert(Account(name: "ana", preferences: Preferences(theme: "dark", recent: [], limits: [:])))
        try context.save()
        let error = #expect(throws: SwiftDataError.self) {
            try context.fetch(FetchDescriptor<Account>(predicate: #Predicate { $0.preferences.theme == "dark" }))
        }
        #expect(error?.code == .unsupportedPredicate)
        #expect("\(error!)".contains("@Attribute(.codable)"))
        // The rest of the model is queried as usual.
        #expect(try context.fetchCount(FetchDescriptor<Account>(predicate: #Predicate { $0.name == "ana" })) == 1)
    }

    /// The second release opens the first's store with no migration plan and no lightweight
    /// migration: the stored values decode with the new shape.
    @Test func aChangeOfShapeNeedsNoMigration() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        do {
            let first = try ModelContainer(for: ProfileRelease1.Profile.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(first)
            context.insert(ProfileRelease1.Profile(name: "ana", settings: .init(theme: "dark")))
            try context.save()
            first.close()
        }
        // Read-only, a store that needed a migration could not be opened at all.
        let readOnly = try ModelContainer(for: ProfileRelease2.Profile.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(try ModelContext(readOnly).fetch(FetchDescriptor<ProfileRelease2.Profile>()).first?.settings.theme == "dark")
        readOnly.close()
        let second = try ModelContainer(for: ProfileRelease2.Profile.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(second)
        let profile = try #require(try context.fetch(FetchDescriptor<ProfileRelease2.Profile>()).first)
        #expect(profile.settings.theme == "dark")
        #expect(profile.settings.fontSize == nil)
        profile.settings.fontSize = 14
        try context.save()
        let again = try ModelContext(try ModelContainer(for: ProfileRelease2.Profile.self, configurations: ModelConfiguration(url: url)))
        #expect(try again.fetch(FetchDescriptor<ProfileRelease2.Profile>()).first?.settings.fontSize == 14)
    }
}

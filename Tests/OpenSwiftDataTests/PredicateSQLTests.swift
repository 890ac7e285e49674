import Foundation
import Testing
@testable import OpenSwiftData

/// The SQL representative predicates become: joins for to-one paths, correlated EXISTS and count
/// subqueries for to-many, json_each for array attributes, Swift functions and collation for
/// strings, and every value bound.
@Suite struct PredicateSQLTests {
    private func sql<T: PersistentModel>(_ predicate: Predicate<T>, sortBy: [SortDescriptor<T>] = []) throws -> RenderedSQL {
        let store = try TestStore(.memory, [QPerson.self, QTeam.self, QSponsor.self])
        let statements = try store.sql {
            _ = try store.context().fetch(FetchDescriptor<T>(predicate: predicate, sortBy: sortBy))
        }
        return try #require(statements.first)
    }

    @Test func toOnePathsJoin() throws {
        let statement = try sql(#Predicate<QPerson> { $0.mentor?.team?.name == "Lions" })
        #expect(statement.text.contains("LEFT JOIN \"QPerson\" AS t1 ON (t1.\"Z_PK\" = t0.\"mentor\")"))
        #expect(statement.text.contains("LEFT JOIN \"QTeam\" AS t2 ON (t2.\"Z_PK\" = t1.\"team\")"))
        #expect(!statement.text.contains("EXISTS"))
        #expect(statement.bindings == [.text("Lions")])
    }

    @Test func toManyBecomesCorrelatedExists() throws {
        let statement = try sql(#Predicate<QTeam> { $0.members.contains { $0.age > 40 } })
        #expect(statement.text == "SELECT t0.\"Z_PK\", t0.\"name\", t0.\"city\", t0.\"founded\" FROM \"QTeam\" AS t0 WHERE EXISTS (SELECT 1 FROM \"QPerson\" AS t1 WHERE ((t1.\"team\" = t0.\"Z_PK\") AND (t1.\"age\" > ?1))) ORDER BY t0.\"Z_PK\" ASC")
        #expect(statement.bindings == [.integer(40)])
    }

    @Test func manyToManyGoesThroughTheJoinTable() throws {
        let statement = try sql(#Predicate<QTeam> { $0.sponsors.count > 1 })
        #expect(statement.text.contains("(SELECT count(1) FROM \"QSponsor\" AS t1 JOIN \"Z_QSponsor_teams\" AS t2 ON (t2.\"Z_SOURCE\" = t1.\"Z_PK\") WHERE (t2.\"Z_TARGET\" = t0.\"Z_PK\"))"))
    }

    @Test func allSatisfyIsNotExistsOfAFailingElement() throws {
        let statement = try sql(#Predicate<QTeam> { $0.members.allSatisfy { $0.isActive } })
        #expect(statement.text.contains("(NOT EXISTS (SELECT 1 FROM \"QPerson\" AS t1 WHERE ((t1.\"team\" = t0.\"Z_PK\") AND (NOT coalesce(t1.\"isActive\", 0)))))"))
    }

    @Test func arrayAttributesUseJSONEach() throws {
        let statement = try sql(#Predicate<QPerson> { $0.scores.contains(where: { $0 > 90 }) })
        #expect(statement.text.contains("EXISTS (SELECT 1 FROM json_each(t0.\"scores\") AS t1 WHERE (t1.\"value\" > ?1))"))
    }

    @Test func constantArraysBecomeInLists() throws {
        let names = ["Ann", "Bob"]
        let statement = try sql(#Predicate<QPerson> { names.contains($0.name) })
        #expect(statement.text.contains("(t0.\"name\" COLLATE SWIFT) IN (?1, ?2)"))
        #expect(statement.bindings == [.text("Ann"), .text("Bob")])
    }

    @Test func stringOperationsCallSwift() throws {
        let search = "pe"
        let statement = try sql(#Predicate<QPerson> { $0.name.localizedStandardContains(search) || $0.name.starts(with: "A") || $0.name.contains("x") })
        #expect(statement.text.contains("osd_localized_standard_contains(t0.\"name\", ?1)"))
        #expect(statement.text.contains("osd_starts_with(t0.\"name\", ?2)"))
        #expect(statement.text.contains("osd_contains(t0.\"name\", ?3)"))
        #expect(statement.bindings == [.text("pe"), .text("A"), .text("x")])
    }

    @Test func valuesAreNeverSplicedIntoTheText() throws {
        let hostile = "'; DROP TABLE \"QPerson\"; --"
        let statement = try sql(#Predicate<QPerson> { $0.name == hostile || $0.tags.contains(hostile) || $0.attributes[hostile] == 1 })
        #expect(!statement.text.contains("DROP TABLE"))
        #expect(statement.bindings.contains(.text(hostile)))
    }

    @Test func constantSubexpressionsAreFolded() throws {
        let base = 20
        let statement = try sql(#Predicate<QPerson> { $0.age > base * 2 + 1 && (base > 100 || $0.isActive) })
        #expect(statement.text.contains("WHERE ((t0.\"age\" > ?1) AND t0.\"isActive\")"))
        #expect(statement.bindings == [.integer(41)])
    }

    @Test func sortingThroughToOnePathsJoins() throws {
        let statement = try sql(#Predicate<QPerson> { $0.age > 0 }, sortBy: [SortDescriptor(\.team?.name), SortDescriptor(\.name, order: .reverse)])
        #expect(statement.text.contains("LEFT JOIN \"QTeam\" AS t1 ON (t1.\"Z_PK\" = t0.\"team\")"))
        #expect(statement.text.contains("ORDER BY (t1.\"name\" COLLATE SWIFT) ASC, (t0.\"name\" COLLATE SWIFT) DESC, t0.\"Z_PK\" ASC"))
    }
}

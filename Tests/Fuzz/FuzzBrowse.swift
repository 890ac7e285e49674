import Foundation
import OpenSwiftData
import TestModels

/// The studio's reader under hostile input: a Core Data file whose model archive (`Z_MODELCACHE`)
/// was mutated — or crafted, as the corpus's archives are — opened without its models; and pages
/// asked for with any entity, property, condition, order, offset and size a URL can hold. Each
/// input must end in pages or a thrown error.
enum FuzzBrowse {
    /// Puts `archive` — a binary property list, kept uncompressed (the browser is given no
    /// inflating to undo) — in `file`'s model cache.
    static func setArchive(_ archive: Data, in file: URL) {
        FuzzStoreFile.apply(sql: "DELETE FROM Z_MODELCACHE; INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (X'\(archive.map { String(format: "%02X", $0) }.joined())');", to: file)
    }

    /// Opens the Core Data `file` without its models and reads a page of every entity: `true`
    /// if it read, `false` if it was refused with an error.
    static func open(coreData file: URL) -> Bool {
        do {
            let browser = try StoreBrowser.open(file: file, allowsEdits: false, inflate: { $0 })
            for entity in browser.catalog.entities {
                _ = try browser.page(BrowseQuery(entity: entity.name).with(limit: 20)).rows.map(\.values.count)
            }
            _ = try browser.history(limit: 20).count
            return true
        } catch {
            if ProcessInfo.processInfo.environment["OPENSWIFTDATA_FUZZ_VERBOSE"] != nil { print("refused: \(error)") }
            return false
        }
    }

    /// Asks `file`'s browser (an OpenSwiftData or Core Data store) for pages and rows with
    /// values a URL may hold; returns what was asked, and `true` if every answer was a page.
    static func query(_ file: URL, coreData: Bool, _ random: inout SplitMix64) -> (String, Bool) {
        let browser: StoreBrowser
        do {
            browser = try StoreBrowser.open(file: file, allowsEdits: false, inflate: { $0 })
        } catch {
            return ("the store did not open", false)
        }
        let entities = browser.catalog.entities
        func name(_ known: [String]) -> String {
            random.below(4) == 0 || known.isEmpty ? hostileText(&random) : known[random.below(known.count)]
        }
        var asked: [String] = []
        var answered = true
        for _ in 0..<(1 + random.below(4)) {
            var query = BrowseQuery(entity: name(entities.map(\.name)))
            let properties = browser.catalog.entity(query.entity).map { $0.rowAttributes.map(\.name) + $0.rowRelationships.map(\.name) } ?? []
            for _ in 0..<random.below(3) {
                let op = BrowseCondition.Operator.allCases[random.below(BrowseCondition.Operator.allCases.count)]
                query.conditions.append(BrowseCondition(property: name(properties), op: op, value: hostileText(&random)))
            }
            if random.below(2) == 0 { query.sort = name(properties) }
            query.ascending = random.below(2) == 0
            query.offset = hostileInteger(&random)
            query.limit = hostileInteger(&random)
            if random.below(4) == 0 {
                query.related = BrowseQuery.Related(owner: name(entities.map(\.name)), key: Int64(truncatingIfNeeded: hostileInteger(&random)), relationship: name(properties))
            }
            asked.append("\(query)")
            do {
                _ = try browser.page(query).rows.map(\.values.count)
                _ = try browser.row(query.entity, key: Int64(truncatingIfNeeded: hostileInteger(&random)))
            } catch {
                answered = false
                if ProcessInfo.processInfo.environment["OPENSWIFTDATA_FUZZ_VERBOSE"] != nil { print("refused: \(error)") }
            }
        }
        return ((coreData ? "core data " : "") + asked.joined(separator: "; "), answered)
    }

    /// A number a URL's parameter may hold.
    static func hostileInteger(_ random: inout SplitMix64) -> Int {
        let values = [0, 1, -1, 50, 1000, 1001, Int.max, Int.min, Int(Int32.max), BrowseQuery.maximumOffset, BrowseQuery.maximumOffset + 1, random.below(100)]
        return values[random.below(values.count)]
    }

    /// Text a URL's parameter may hold.
    static func hostileText(_ random: inout SplitMix64) -> String {
        let values = ["", "x", "0", "-1", "1e309", "NaN", "9223372036854775808", "2026-13-40", "' OR 1=1 --", "\"; DROP TABLE Z_METADATA; --",
                      "Z_PK", "Z_OWNER", "%", "_", "\u{0}", "é\u{301}", String(repeating: "x", count: 70_000), UUID().uuidString, "true", "null"]
        return values[random.below(values.count)]
    }
}

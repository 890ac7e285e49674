import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// What SwiftData code takes from Apple's Foundation that Linux Foundation lacks, supplied under
/// the same names.
@Suite struct FoundationGapTests {
    @Test func didSaveArrivesThroughNotificationsNamed() async throws {
        let (container, _) = try TestContainer.make()
        let context = ModelContext(container)
        var iterator = NotificationCenter.default.notifications(named: ModelContext.didSave, object: context).makeAsyncIterator()
        context.insert(Book(title: "Dune"))
        try context.save()
        let saved = await iterator.next()
        let inserted = saved?.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]
        #expect(inserted?.count == 1)
    }

    @Test func localizedStringsFallBackToTheirText() {
        let city = "Kyoto"
        #expect(String(localized: "Trip to \(city)", comment: "A new trip's title") == "Trip to Kyoto")
        #expect(String(localized: "untranslated.key", defaultValue: "Untranslated") == "Untranslated")
    }
}

import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// `ModelContainer`, `ModelConfiguration` and `ModelContext` members SwiftData code uses, and the `URL` folders
/// apps place stores in.
@Suite struct ContainerAPITests {
    @Test func aContextEqualsItselfAndNoOther() throws {
        let (container, _) = try TestContainer.make()
        let context = ModelContext(container)
        let same = context
        #expect(context == same)
        #expect(context != ModelContext(container))
    }

    @Test func eraseEmptiesEveryStoreAndTheContainerStaysUsable() throws {
        let (container, url) = try TestContainer.make()
        let context = ModelContext(container)
        let library = Library(code: "L1", name: "Central")
        context.insert(library)
        library.books.append(Book(title: "Dune"))
        try context.save()
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)

        try container.erase()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Book>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Library>()) == 0)
        #expect(try fresh.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)

        fresh.insert(Library(code: "L1", name: "Central again"))
        try fresh.save()
        let reopened = try ModelContainer(for: Library.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Library>()).map(\.name) == ["Central again"])
    }

    @Test func eraseRefusesAReadOnlyStoreAndKeepsItsData() throws {
        let (container, url) = try TestContainer.make()
        let context = ModelContext(container)
        context.insert(Book(title: "Dune"))
        try context.save()
        let readOnly = try ModelContainer(for: Library.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect {
            try readOnly.erase()
        } throws: { error in
            (error as? SwiftDataError)?.code == .readOnlyStore
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Book>()) == 1)
    }

    @Test func containersAreEqualToThemselvesOnly() throws {
        let (first, url) = try TestContainer.make()
        let second = try ModelContainer(for: Library.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url))
        #expect(first == first)
        #expect(first != second)
        #expect(first.migrationPlan == nil)
    }

    @Test func configurationsAreASetOfWhatWasGiven() throws {
        let url = URL.temporaryDirectory.appending(path: "swiftdata-compat-\(UUID().uuidString)/Archive.store")
        let archive = ModelConfiguration("Archive", schema: Schema([Shelf.self]), url: url)
        let scratch = ModelConfiguration(
            "Scratch", schema: Schema([Library.self, Book.self]), isStoredInMemoryOnly: true,
            groupContainer: .identifier("group.example.books"), cloudKitDatabase: .private("iCloud.example.books"))
        let container = try ModelContainer(for: Library.self, Book.self, Shelf.self, configurations: archive, scratch)
        let configurations: Set<ModelConfiguration> = container.configurations
        #expect(configurations == [archive, scratch])
        let stored = try #require(configurations.first { $0.id == "Archive" })
        #expect(stored.url == url && stored.name == "Archive")
        let memory = try #require(configurations.first { $0.id == "Scratch" })
        #expect(memory.url == URL(filePath: "/dev/null"))
        #expect(memory.groupContainer == .identifier("group.example.books"))
        #expect(memory.cloudKitDatabase == .private("iCloud.example.books"))
        #expect(memory.groupAppContainerIdentifier == "group.example.books")
        #expect(memory.cloudKitContainerIdentifier == "iCloud.example.books")
        #expect(stored.cloudKitDatabase == .automatic)
        #expect(ModelConfiguration.CloudKitDatabase.none != .automatic)
        #expect(ModelConfiguration.GroupContainer.none != .automatic)
    }

    /// `ModelConfiguration`-typed initialisers: `.init(…)` and `[.init(…)]` resolve as they do
    /// against SwiftData, beside the `any DataStoreConfiguration` forms.
    @Test func containerInitialisersAcceptImplicitModelConfigurations() throws {
        let schema = Schema([Library.self, Book.self, Shelf.self])
        let containers: [ModelContainer] = [
            try ModelContainer(for: Book.self, configurations: .init(isStoredInMemoryOnly: true)),
            try ModelContainer(for: Library.self, Book.self, Shelf.self, migrationPlan: BooksPlan.self, configurations: .init(isStoredInMemoryOnly: true)),
            try ModelContainer(for: schema, configurations: .init(isStoredInMemoryOnly: true)),
            try ModelContainer(for: schema, migrationPlan: BooksPlan.self, configurations: .init(isStoredInMemoryOnly: true)),
            try ModelContainer(for: schema, configurations: [.init(isStoredInMemoryOnly: true)]),
            try ModelContainer(for: schema, migrationPlan: BooksPlan.self, configurations: [.init(isStoredInMemoryOnly: true)]),
            try ModelContainer(for: schema, configurations: .init("Books", schema: Schema([Book.self]), isStoredInMemoryOnly: true),
                               .init("Shelves", schema: Schema([Shelf.self]), isStoredInMemoryOnly: true)),
            // The existential forms still resolve.
            try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)] as [any DataStoreConfiguration]),
            try ModelContainer(for: Book.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true) as any DataStoreConfiguration),
        ]
        for (index, container) in containers.enumerated() {
            #expect(!container.configurations.isEmpty && container.configurations.allSatisfy(\.isStoredInMemoryOnly), "container \(index)")
            let context = ModelContext(container)
            context.insert(Book(title: "Dune \(index)"))
            try context.save()
            #expect(try ModelContext(container).fetch(FetchDescriptor<Book>()).map(\.title) == ["Dune \(index)"], "container \(index)")
        }
        #expect(containers[1].migrationPlan == BooksPlan.self && containers[5].migrationPlan == BooksPlan.self)
        #expect(containers[6].configurations.map(\.name).sorted() == ["Books", "Shelves"])
    }

    @Test func urlFoldersAreTheOnesFoundationsFileManagerNames() throws {
        let fileManager = FileManager.default
        #expect(URL.applicationSupportDirectory == fileManager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first)
        #expect(URL.cachesDirectory == fileManager.urls(for: .cachesDirectory, in: .userDomainMask).first)
        #expect(URL.documentsDirectory == fileManager.urls(for: .documentDirectory, in: .userDomainMask).first)
        #expect(URL.applicationSupportDirectory != URL.cachesDirectory)

        // A store placed as an app places it (in a folder of its own, removed afterwards).
        let folder = URL.cachesDirectory.appending(path: "openswiftdata-compat-\(UUID().uuidString)")
        defer { try? fileManager.removeItem(at: folder) }
        let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(url: folder.appending(path: "shelves.store")))
        let context = ModelContext(container)
        context.insert(Shelf(label: "A", x: 1, y: 2))
        try context.save()
        #expect(fileManager.fileExists(atPath: folder.appending(path: "shelves.store").path))
    }
}

import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// Sharing between users: a board and what hangs off it (its cards and labels, their
/// checklists) shared by alice with bob as reader or writer, the role changed, the share ended.
/// Alice has two devices; on PostgreSQL bob's device syncs with a second server instance.
@Suite struct SyncSharingTests {
    typealias Users = SyncUsersTests.Users

    /// Alice's devices (two) and bob's (one), each synced once; alice's first device holds a
    /// board "Trip" (cards "Hotel", with a checklist and the label "Paid", and "Train") and a
    /// board "Home" (card "Rent"), synced.
    func trip(_ kind: StoreKind) async throws -> (users: Users, alice: Int, alice2: Int, bob: Int) {
        let users = try Users(kind)
        let alice = try users.device("alice"), alice2 = try users.device("alice"), bob = try users.device("bob", second: true)
        let context = users.context(alice)
        let trip = Board(name: "Trip"), home = Board(name: "Home")
        let hotel = Card(note: "Hotel", board: trip), paid = Label(name: "Paid", board: trip)
        context.insert(trip)
        context.insert(home)
        context.insert(hotel)
        context.insert(paid)
        context.insert(Card(note: "Train", board: trip))
        context.insert(Card(note: "Rent", board: home))
        hotel.labels = [paid]
        hotel.checklist = Checklist(items: "passport")
        try context.save()
        for device in [alice, alice2, bob] { try await users.sync(device) }
        return (users, alice, alice2, bob)
    }

    /// Shares `board` on `device` with `user` as `role`, syncs, and has `user` accept the offer
    /// on the server (its devices hear it at their next sync; ``SyncOfferTests`` answers offers
    /// on devices).
    func share(_ board: String, on device: Int, of users: Users, with user: String, as role: SyncShare.Role) async throws {
        let context = users.context(device)
        try context.share(try self.board(board, on: device, of: users, in: context), with: user, role: role)
        try context.save()
        #expect(try await users.sync(device).refused.isEmpty)
        for offer in try users.server.offers(for: user) { try users.server.accept(offer, for: user) }
    }

    func board(_ name: String, on device: Int, of users: Users, in context: ModelContext? = nil) throws -> Board {
        try #require(try (context ?? users.context(device)).fetch(FetchDescriptor<Board>(predicate: #Predicate { $0.name == name })).first)
    }

    /// The notes of the cards a device holds, sorted.
    func cards(_ device: Int, of users: Users) throws -> [String] {
        try users.context(device).fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.note)])).map(\.note)
    }

    /// However many trees one save reaches, each is arranged as its own: the server's own code
    /// makes 300 boards shared with bob to read shared to write, in one save, and bob can then
    /// write every one of them; his cards, one on each board in one sync, are each their
    /// board's, on the server and on the sharer's device. (Arranging knew models by address: a
    /// board freed while it went on lent its address, and its tree, to the next one loaded, and
    /// some shares were left as they were, still read-only.)
    @Test func eachObjectOfASaveAcrossManyTreesJoinsItsOwnTree() async throws {
        var options = SyncSharingOptions()
        options.maximumOffersWaiting = 1_000
        let users = try Users(.memory, sharing: options)
        let alice = try users.device("alice"), bob = try users.device("bob")
        for device in [alice, bob] { try await users.sync(device) }
        let count = 300
        let shared = users.context(alice)
        let made = (0..<count).map { Board(name: "B\($0)") }
        for board in made { shared.insert(board) }
        try shared.save()
        for board in made { try shared.share(board, with: "bob", role: .reader) }
        try shared.save()
        #expect(try await users.sync(alice).refused.isEmpty)
        for offer in try users.server.offers(for: "bob") { try users.server.accept(offer, for: "bob") }
        let promoting = ModelContext(users.serverStore.container)
        let shares = try promoting.fetch(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.grantee == "bob" }))
        #expect(shares.count == count)
        for share in shares { share.role = SyncShare.Role.writer.rawValue }
        try promoting.save()
        try await users.sync(bob)
        #expect(try ModelContext(users.serverStore.container).grants(to: "bob").filter { $0.access == .write }.count == count)
        #expect(try users.context(bob).fetch(FetchDescriptor<SyncShare>()).filter { $0.role == SyncShare.Role.writer.rawValue }.count == count)
        let writing = users.context(bob)
        let boards = try writing.fetch(FetchDescriptor<Board>())
        #expect(boards.count == count)
        for board in boards { writing.insert(Card(note: "card \(board.name)", board: board)) }
        try writing.save()
        #expect(try await users.sync(bob).refused.isEmpty)

        let server = ModelContext(users.serverStore.container)
        let cards = try server.fetch(FetchDescriptor<Card>())
        #expect(cards.count == count)
        let owners = try server.owners(of: cards.map(\.persistentModelID) + cards.compactMap { $0.board?.persistentModelID })
        for card in cards {
            let board = try #require(card.board)
            #expect(card.note == "card \(board.name)")
            #expect(owners[card.persistentModelID] == owners[board.persistentModelID])
            #expect(owners[board.persistentModelID]?.hasPrefix(SyncZone.prefix) == true)
        }
        try await users.sync(alice)
        let received = try users.context(alice).fetch(FetchDescriptor<Card>())
        #expect(received.count == count)
        #expect(received.allSatisfy { $0.note == "card \($0.board?.name ?? "")" })
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aReaderReceivesTheTreeAndCannotWriteIt(_ kind: StoreKind) async throws {
        let (users, alice, _, bob) = try await trip(kind)
        #expect(try cards(bob, of: users).isEmpty)
        let chores = users.context(bob)
        chores.insert(Board(name: "Chores"))
        try chores.save()
        try await users.sync(bob)
        try await share("Trip", on: alice, of: users, with: "bob", as: .reader)

        // Bob's device had synced before: its position passed the tree, so it starts again.
        let first = try await users.sync(bob)
        #expect(first.reset?.reason == "what is shared with this device's user changed since it last synced")
        #expect(try cards(bob, of: users) == ["Hotel", "Train"])
        let hotel = try #require(try users.context(bob).fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.note == "Hotel" })).first)
        #expect(hotel.board?.name == "Trip")
        #expect(hotel.labels.map(\.name) == ["Paid"])
        #expect(hotel.checklist?.items == "passport")
        #expect(try users.context(bob).fetch(FetchDescriptor<Board>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Chores", "Trip"])
        let shares = try users.context(bob).shares(of: try board("Trip", on: bob, of: users))
        #expect(shares.map { "\($0.owner)>\($0.grantee):\($0.role)" } == ["alice>bob:reader"])

        // Bob's edit of a shared card, and his new card on the shared board, are refused and
        // undone on his device.
        let context = users.context(bob)
        try #require(try context.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.note == "Hotel" })).first).note = "Hostel"
        context.insert(Card(note: "Taxi", board: try board("Trip", on: bob, of: users, in: context)))
        try context.save()
        let refused = try await users.sync(bob).refused.map(\.reason).sorted()
        #expect(refused == ["it adds to an object shared with bob to read only", "it writes an object shared with bob to read only"])
        // The edit went back; the new card, which the server never had, is set aside.
        let afterRefusals = try cards(bob, of: users)
        #expect(afterRefusals == ["Hotel", "Taxi", "Train"])
        #expect(try users.serverNotesOfCards("alice") == ["Hotel", "Rent", "Train"])

        // A forged record writing the shared card straight is refused too.
        let global = try users.serverIdentity(ofCard: "Hotel")
        let clock = SyncClock(time: Date(), node: "bob")
        try users.expectEachRefused([SyncRecord(id: global, entity: "Card", deleted: nil, fields: ["note": .init(clock: clock, value: SyncValue(.text("Stolen")))])], as: "bob") { _, refusal in
            refusal.reason == "it writes an object shared with bob to read only"
        }

        // What alice adds to the tree reaches bob, from her device and from the server's own code.
        let mine = users.context(alice)
        mine.insert(Card(note: "Museum", board: try board("Trip", on: alice, of: users, in: mine)))
        try mine.save()
        try await users.sync(alice)
        #expect(try users.server.sharedSpaces(for: "alice").count == 1)
        let server = ModelContext(users.serverStore.container, owner: "alice", includingGrants: true)
        let serverTrip = try #require(try server.fetch(FetchDescriptor<Board>(predicate: #Predicate { $0.name == "Trip" })).first)
        server.insert(Card(note: "Ferry", board: serverTrip))
        try server.save()
        #expect(try await users.sync(bob).refused.isEmpty)
        let received = try cards(bob, of: users)
        #expect(received == ["Ferry", "Hotel", "Museum", "Taxi", "Train"])
        // Nothing of alice's unshared board reached bob.
        #expect(try users.context(bob).fetch(FetchDescriptor<Board>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Chores", "Trip"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aWriterEditsTheTreeUntilTheRoleChangesOrTheShareEnds(_ kind: StoreKind) async throws {
        let (users, alice, alice2, bob) = try await trip(kind)
        try await share("Trip", on: alice, of: users, with: "bob", as: .writer)
        try await users.sync(bob)

        // Bob edits a card and files a new one with the shared label: a many-to-many inside the tree.
        let context = users.context(bob)
        try #require(try context.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.note == "Train" })).first).note = "Night train"
        let paid = try #require(try context.fetch(FetchDescriptor<Label>()).first)
        let dinner = Card(note: "Dinner", board: try board("Trip", on: bob, of: users, in: context))
        context.insert(dinner)
        dinner.labels = [paid]
        // His own board, whose label holds a shared card: his, and it stays his.
        let own = Board(name: "Bob's")
        context.insert(own)
        let favourite = Label(name: "Favourite", board: own)
        context.insert(favourite)
        favourite.cards = [try #require(try context.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.note == "Hotel" })).first)]
        try context.save()
        #expect(try await users.sync(bob).refused.isEmpty)
        try await users.sync(alice2)
        #expect(try cards(alice2, of: users) == ["Dinner", "Hotel", "Night train", "Rent"])
        let filed = try #require(try users.context(alice2).fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.note == "Dinner" })).first)
        #expect(filed.board?.name == "Trip")
        #expect(filed.labels.map(\.name) == ["Paid"])
        #expect(try users.context(alice2).fetch(FetchDescriptor<Label>(predicate: #Predicate { $0.name == "Paid" })).first?.cards.map(\.note).sorted() == ["Dinner", "Hotel"])
        // Alice's devices see nothing of bob's own board.
        #expect(try users.context(alice2).fetch(FetchDescriptor<Board>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Home", "Trip"])

        // Alice makes bob a reader: his next edit is refused.
        try await share("Trip", on: alice2, of: users, with: "bob", as: .reader)
        try await users.sync(bob)
        #expect(try users.context(bob).shares(of: try board("Trip", on: bob, of: users)).map(\.role) == ["reader"])
        let edit = users.context(bob)
        try #require(try edit.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.note == "Dinner" })).first).note = "Lunch"
        try edit.save()
        #expect(try await users.sync(bob).refused.map(\.reason) == ["it writes an object shared with bob to read only"])

        // Alice ends the share: bob's devices drop the tree without recording deletes, and keep
        // their own board and label, which no longer holds the shared card.
        let ending = users.context(alice)
        try await users.sync(alice)
        try ending.unshare(try board("Trip", on: alice, of: users, in: ending), with: "bob")
        try ending.save()
        try await users.sync(alice)
        let ended = try await users.sync(bob)
        #expect(ended.reset?.dropped ?? 0 >= 5)
        #expect(try cards(bob, of: users).isEmpty)
        #expect(try users.context(bob).fetch(FetchDescriptor<Board>()).map(\.name) == ["Bob's"])
        let kept = try #require(try users.context(bob).fetch(FetchDescriptor<Label>()).first)
        #expect(kept.name == "Favourite")
        #expect(kept.cards.isEmpty)
        #expect(try await users.sync(bob).sent == 0)
        // Nothing was deleted for alice.
        try await users.sync(alice2)
        #expect(try cards(alice2, of: users) == ["Dinner", "Hotel", "Night train", "Rent"])
        #expect(try users.serverNotesOfCards("alice") == ["Dinner", "Hotel", "Night train", "Rent"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func onlyTheSharerSharesAndChangesAShare(_ kind: StoreKind) async throws {
        let (users, alice, _, bob) = try await trip(kind)
        try await share("Trip", on: alice, of: users, with: "bob", as: .writer)
        try await users.sync(bob)

        // Bob cannot pass alice's board on, nor make himself more than he is.
        let context = users.context(bob)
        let trip = try board("Trip", on: bob, of: users, in: context)
        #expect(throws: SyncError.self) { try context.share(trip, with: "carol", role: .reader) }
        let root = try #require(try context.globalIdentities(of: [trip.persistentModelID], assigning: false)[trip.persistentModelID])
        let clock = SyncClock(time: Date(), node: "bob")
        func forged(owner: String, grantee: String, role: String, root: UUID, entity: String = "Board") -> SyncRecord {
            SyncRecord(id: UUID(), entity: "SyncShare", deleted: nil, fields: [
                "root": .init(clock: clock, value: SyncValue(.uuid(root))), "rootEntity": .init(clock: clock, value: SyncValue(.text(entity))),
                "owner": .init(clock: clock, value: SyncValue(.text(owner))), "grantee": .init(clock: clock, value: SyncValue(.text(grantee))),
                "role": .init(clock: clock, value: SyncValue(.text(role))), "accepted": .init(clock: clock, value: SyncValue(.integer(0))),
            ])
        }
        let existing = try #require(try context.shares(of: trip).first)
        let existingID = try #require(try context.globalIdentities(of: [existing.persistentModelID], assigning: false)[existing.persistentModelID])
        try users.expectEachRefused([forged(owner: "bob", grantee: "carol", role: "reader", root: root)], as: "bob") { _, refusal in
            refusal.reason == "it shares an object that is not bob's"
        }
        try users.expectEachRefused([forged(owner: "alice", grantee: "carol", role: "reader", root: root)], as: "bob") { _, refusal in
            refusal.reason == "a share is made in the name of the user whose device makes it"
        }
        try users.expectEachRefused([SyncRecord(id: existingID, entity: "SyncShare", deleted: nil, fields: ["role": .init(clock: clock, value: SyncValue(.text("writer")))]),
                                     SyncRecord(id: existingID, entity: "SyncShare", deleted: clock, fields: [:])], as: "bob") { _, refusal in
            refusal.reason == "only the user who shared an object changes or ends its shares"
        }
        // A card of the tree is shared with it, not apart; a ledger has a unique name.
        let hotel = try users.serverIdentity(ofCard: "Hotel")
        try users.expectEachRefused([forged(owner: "alice", grantee: "carol", role: "reader", root: hotel, entity: "Card")], as: "alice") { _, refusal in
            refusal.reason == "it shares an object that is already shared as part of another tree"
        }
        let ledger = users.context(alice)
        ledger.insert(Ledger(name: "Food"))
        try ledger.save()
        try await users.sync(alice)
        let food = try #require(try ledger.fetch(FetchDescriptor<Ledger>()).first)
        try ledger.share(food, with: "bob", role: .reader)
        try ledger.save()
        #expect(try await users.sync(alice).refused.map(\.reason) == ["Ledger has a unique constraint: on a grantee's device, where everyone's objects are in one store, a shared object would merge with the grantee's own"])
        #expect(try users.server.sharedSpaces(for: "bob").count == 1)
    }
}

extension SyncUsersTests.Users {
    /// The notes of the cards `owner` reads on the server (its own and the trees it reads), sorted.
    func serverNotesOfCards(_ owner: String) throws -> [String] {
        let context = ModelContext(serverStore.container, owner: owner, includingGrants: true)
        return try context.fetch(FetchDescriptor<Card>(sortBy: [SortDescriptor(\.note)])).map(\.note)
    }

    /// The global identity of the server's card `note` (whoever's it is).
    func serverIdentity(ofCard note: String) throws -> UUID {
        let context = ModelContext(serverStore.container)
        let card = try #require(try context.fetch(FetchDescriptor<Card>(predicate: #Predicate { $0.note == note })).first)
        return try #require(try context.globalIdentities(of: [card.persistentModelID], assigning: false)[card.persistentModelID])
    }
}

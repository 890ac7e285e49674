import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// Shares are offers until their grantees accept them (``SyncOffer``): before that nothing of
/// the tree reaches the grantee's devices or server contexts and no device starts again; an
/// answer travels with the grantee's next sync (or is given on the server); shares have limits.
@Suite struct SyncOfferTests {
    typealias Users = SyncUsersTests.Users
    let sharing = SyncSharingTests()

    /// Boards named after the offer, as the example names ledgers.
    static var options: SyncSharingOptions {
        var options = SyncSharingOptions()
        options.offerTitle = { ($0 as? Board)?.name }
        return options
    }

    /// Alice shares `board` with bob as `role` from her first device, and syncs; nobody accepts.
    func offer(_ board: String, on alice: Int, of users: Users, as role: SyncShare.Role = .reader) async throws -> [SyncRefusal] {
        let context = users.context(alice)
        try context.share(try sharing.board(board, on: alice, of: users, in: context), with: "bob", role: role)
        try context.save()
        return try await users.sync(alice).refused
    }

    /// The trip of ``SyncSharingTests``, on a server naming offers after their boards.
    func trip(_ kind: StoreKind, options: SyncSharingOptions = options) async throws -> (users: Users, alice: Int, bob: Int) {
        let users = try Users(kind, sharing: options)
        let alice = try users.device("alice"), bob = try users.device("bob", second: true)
        let context = users.context(alice)
        let trip = Board(name: "Trip")
        context.insert(trip)
        context.insert(Card(note: "Hotel", board: trip))
        context.insert(Board(name: "Home"))
        context.insert(Board(name: "Work"))
        try context.save()
        // Bob has a board of his own, synced: his device's position is past the start.
        let bobs = users.context(bob)
        bobs.insert(Board(name: "Bob's"))
        try bobs.save()
        for device in [alice, bob, bob] { try await users.sync(device) }
        return (users, alice, bob)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func anOfferReachesNothingUntilItsGranteeAcceptsIt(_ kind: StoreKind) async throws {
        let (users, alice, bob) = try await trip(kind)
        #expect(try await offer("Trip", on: alice, of: users).isEmpty)

        // Bob's device hears the offer, by the board's name, and nothing else: no fresh start,
        // no card; on the server his contexts read none of it either.
        let heard = try await users.sync(bob)
        #expect(heard.reset == nil)
        #expect(heard.received == 0)
        let offers = try users.context(bob).shareOffers()
        #expect(offers.map { "\($0.owner):\($0.title ?? ""):\($0.role.rawValue)" } == ["alice:Trip:reader"])
        #expect(try sharing.cards(bob, of: users).isEmpty)
        #expect(try ModelContext(users.serverStore.container, owner: "bob", includingGrants: true).fetchCount(FetchDescriptor<Card>()) == 0)
        #expect(try users.server.sharedSpaces(for: "bob").isEmpty)
        #expect(try users.server.offers(for: "bob").map(\.title) == ["Trip"])
        // The next sync is as quiet.
        #expect(try await users.sync(bob).reset == nil)

        // Accepted on the device, the answer goes with the next sync, which starts again from a
        // fresh copy holding the tree.
        let answering = users.context(bob)
        try answering.accept(try #require(offers.first))
        try answering.save()
        #expect(try users.context(bob).shareOffers().isEmpty)
        let accepted = try await users.sync(bob)
        #expect(accepted.reset?.reason == "what is shared with this device's user changed since it last synced")
        #expect(try sharing.cards(bob, of: users) == ["Hotel"])
        #expect(try users.server.offers(for: "bob").isEmpty)
        #expect(try users.server.sharedSpaces(for: "bob").count == 1)
        // Alice's device sees it accepted.
        try await users.sync(alice)
        let trip = try sharing.board("Trip", on: alice, of: users)
        #expect(try users.context(alice).shares(of: trip).map { "\($0.grantee):\($0.accepted)" } == ["bob:true"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aDeclinedOfferIsDeletedForItsSharer(_ kind: StoreKind) async throws {
        let (users, alice, bob) = try await trip(kind)
        #expect(try await offer("Trip", on: alice, of: users).isEmpty)
        #expect(try await offer("Home", on: alice, of: users).isEmpty)
        try await users.sync(bob)
        let offers = try users.context(bob).shareOffers()
        #expect(offers.compactMap(\.title).sorted() == ["Home", "Trip"])

        // Declined on the device, and on the server by the app's own page.
        let answering = users.context(bob)
        try answering.decline(try #require(offers.first { $0.title == "Trip" }))
        try answering.save()
        #expect(try await users.sync(bob).reset == nil)
        let home = try #require(try users.server.offers(for: "bob").first)
        try users.server.decline(home, for: "bob")
        #expect(try users.server.offers(for: "bob").isEmpty)
        #expect(try await users.sync(bob).reset == nil)
        #expect(try users.context(bob).shareOffers().isEmpty)
        #expect(try sharing.cards(bob, of: users).isEmpty)
        // Alice's devices hear both shares are gone; nothing of hers was deleted.
        try await users.sync(alice)
        for name in ["Trip", "Home"] {
            #expect(try users.context(alice).shares(of: try sharing.board(name, on: alice, of: users)).isEmpty)
        }
        #expect(try sharing.cards(alice, of: users) == ["Hotel"])
        // An answer to an offer that is gone changes nothing, and says so on the server.
        #expect(throws: SyncError.self) { try users.server.accept(home, for: "bob") }
    }

    @Test(arguments: StoreKind.keepingOwners)
    func onlyTheServerRecordsAnAcceptance(_ kind: StoreKind) async throws {
        let (users, alice, _) = try await trip(kind)
        #expect(try await offer("Trip", on: alice, of: users).isEmpty)
        // Alice's device cannot accept her own offer for bob, nor a device make a share that
        // arrives accepted.
        let context = users.context(alice)
        let share = try #require(try context.shares(of: try sharing.board("Trip", on: alice, of: users, in: context)).first)
        let id = try #require(try context.globalIdentities(of: [share.persistentModelID], assigning: false)[share.persistentModelID])
        let clock = SyncClock(time: Date(), node: "alice")
        try users.expectEachRefused([SyncRecord(id: id, entity: "SyncShare", deleted: nil, fields: ["accepted": .init(clock: clock, value: SyncValue(.integer(1)))])],
                                    as: "alice") { _, refusal in refusal.reason == "only its grantee accepts a share" }
        share.accepted = true
        let home = try sharing.board("Home", on: alice, of: users, in: context)
        let forged = try context.share(home, with: "bob", role: .writer)
        forged.accepted = true
        try context.save()
        #expect(try await users.sync(alice).refused.map(\.reason) == ["only its grantee accepts a share"])
        #expect(try users.server.offers(for: "bob").compactMap(\.title).sorted() == ["Home", "Trip"])
        #expect(try users.server.sharedSpaces(for: "bob").isEmpty)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func sharesMadeReceivedAndWaitingHaveLimits(_ kind: StoreKind) async throws {
        var options = Self.options
        options.maximumSharesMade = 2
        options.maximumOffersWaiting = 1
        let (users, alice, bob) = try await trip(kind, options: options)
        #expect(try await offer("Trip", on: alice, of: users).isEmpty)
        // A second offer waiting for bob is one too many.
        #expect(try await offer("Home", on: alice, of: users).map(\.reason) == ["bob has 1 offers waiting for an answer, the most one user may"])
        try users.server.accept(try #require(try users.server.offers(for: "bob").first), for: "bob")
        // Answered, the next one fits.
        #expect(try await offer("Work", on: alice, of: users).isEmpty)
        // Alice has made two shares: a third is refused, whoever it names.
        let context = users.context(alice)
        try context.share(try sharing.board("Home", on: alice, of: users, in: context), with: "carol", role: .reader)
        try context.save()
        #expect(try await users.sync(alice).refused.map(\.reason) == ["alice has made 2 shares, the most one user may"])
        #expect(try users.server.offers(for: "carol").isEmpty)
        try await users.sync(bob)
        #expect(try users.context(bob).shareOffers().map(\.title) == ["Work"])
    }
}

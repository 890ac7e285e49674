import Foundation
import OpenSwiftData

/// A device's record of the offers made to its user (``SyncOffer``) and of its answers not yet
/// sent, kept in its ``SyncReplicaState`` as JSON: what a sync reply brings, and what the next
/// sync sends.
enum SyncOffers {
    /// The offers the server last sent, without those this device answered since.
    static func waiting(in state: SyncReplicaState) -> [SyncOffer] {
        let answered = Set(answers(in: state).map { "\($0.root.uuidString)|\($0.owner)" })
        return decode([SyncOffer].self, state.offers).filter { !answered.contains("\($0.root.uuidString)|\($0.owner)") }
    }

    /// The answers waiting to be sent.
    static func answers(in state: SyncReplicaState) -> [SyncOfferAnswer] {
        decode([SyncOfferAnswer].self, state.offerAnswers)
    }

    /// Records an answer to `offer`, replacing an earlier one.
    static func answer(_ offer: SyncOffer, accept: Bool, in state: SyncReplicaState) {
        var answers = answers(in: state).filter { !($0.root == offer.root && $0.owner == offer.owner) }
        answers.append(SyncOfferAnswer(root: offer.root, owner: offer.owner, accept: accept))
        state.offerAnswers = encode(Array(answers.suffix(SyncRequest.maximumAnswers)))
    }

    /// What a reply told of the offers, after the request that carried `answered` succeeded:
    /// those answers are sent, and the offers are the server's list where it sent one.
    static func heard(_ reply: SyncReply, answered: [SyncOfferAnswer], in state: SyncReplicaState) {
        if !answered.isEmpty {
            let sent = Set(answered)
            state.offerAnswers = encode(answers(in: state).filter { !sent.contains($0) })
        }
        if let offers = reply.offers, let fingerprint = reply.offersFingerprint {
            state.offers = encode(offers)
            state.offersFingerprint = String(fingerprint.prefix(200))
        }
    }

    private static func decode<T: Decodable>(_ type: [T].Type, _ text: String) -> [T] {
        guard !text.isEmpty else { return [] }
        // A value this version cannot read counts as none: the next sync brings the list again.
        return (try? JSONDecoder().decode(type, from: Data(text.utf8))) ?? []
    }

    private static func encode<T: Encodable>(_ value: [T]) -> String {
        value.isEmpty ? "" : ((try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "")
    }
}

import Foundation
import OpenSwiftData

// Query insight's data model: purchases indexed by shop and day and by amount, but not by note,
// each made by a buyer (a to-one whose inverse is a to-many).

@Model
final class Purchase {
    #Index<Purchase>([\.shop, \.day], [\.amount])
    var shop: String
    var day: Int
    var amount: Int
    var note: String
    var buyer: Buyer?

    init(shop: String, day: Int, amount: Int, note: String, buyer: Buyer? = nil) {
        self.shop = shop
        self.day = day
        self.amount = amount
        self.note = note
        self.buyer = buyer
    }
}

@Model
final class Buyer {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Purchase.buyer)
    var purchases: [Purchase] = []

    init(name: String) {
        self.name = name
    }
}

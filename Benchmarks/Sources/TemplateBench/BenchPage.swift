/// The data of shared/notes/bench-page as an `Encodable` view model, as an app would hold it.
struct BenchPage: Codable {
    struct Item: Codable {
        var sku: String
        var name: String
        var qty: Int
        var price: String
    }

    var lang: String
    var title: String
    var description: String
    var cssURL: String
    var siteName: String
    var homeURL: String
    var aboutURL: String
    var contactURL: String
    var userName: String
    var userEmail: String
    var unreadCount: Int
    var accountId: String
    var plan: String
    var memberSince: String
    var items: [Item]
    var subtotal: String
    var tax: String
    var total: String
    var note: String
    var footer: String
    var server: String
    var region: String
    var year: Int
}

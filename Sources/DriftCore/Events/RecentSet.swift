import Foundation

/// A set that remembers at most `capacity` elements, forgetting the oldest first.
struct RecentSet<Element: Hashable & Sendable>: Sendable, Equatable {
    let capacity: Int
    private var members: Set<Element> = []
    private var order: [Element] = []
    private var head = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    func contains(_ element: Element) -> Bool { members.contains(element) }

    mutating func insert(_ element: Element) {
        guard members.insert(element).inserted else { return }
        order.append(element)
        if members.count > capacity {
            members.remove(order[head])
            head += 1
            if head > capacity {
                order.removeFirst(head)
                head = 0
            }
        }
    }
}

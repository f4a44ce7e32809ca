// A Swift 6.3.1 miscompile at -O (found through `samlharness load`, issue 18): a task-group
// child that returns a tuple holding a captured no-payload enum from inside do/catch loses
// the enum — every child reports the first case. -Onone prints a: 2, b: 2, c: 2, d: 2;
// -O prints a: 8, b: 0, c: 0, d: 0. `try?` instead of do/catch, or assigning the result in
// do/catch and returning a struct after it (what LoadCommand does now), gives the right counts.
//   bash scripts/repro/check-taskgroup-miscompile.sh
enum Flow: CaseIterable, Sendable { case a, b, c, d }
struct Outcome: Sendable { let n: Int }

@inline(never) func login(_ i: Int) async throws -> Outcome { Outcome(n: i) }

@main struct Main {
    static func main() async {
        var counts: [Flow: Int] = [:]
        await withTaskGroup(of: (Flow, Outcome?).self) { group in
            for i in 0..<8 {
                let flow = Flow.allCases[i % 4]
                group.addTask {
                    do { return (flow, try await login(i)) } catch { return (flow, nil) }
                }
            }
            for await (flow, _) in group { counts[flow, default: 0] += 1 }
        }
        print(Flow.allCases.map { "\($0): \(counts[$0] ?? 0)" }.joined(separator: ", "))
    }
}

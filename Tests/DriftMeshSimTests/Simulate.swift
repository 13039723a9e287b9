import DriftMeshSim
import TestSupport

/// Runs simulations on TestSupport's CPU lane (``runCPUBound(_:)``), off the cooperative pool.
///
/// A simulation is seconds of plain computation. Run inline by a synchronous test, it held one
/// of the pool's two threads; two such tests held the pool, and beside `stress-ng --cpu 2` the
/// suite's real-time tests (the Meshtastic radio on a pseudo-terminal, the watchdog's notify
/// socket) stood still behind them for 40–60 s and missed their deadlines. Without these tests
/// the suite passed beside `stress-ng`; with them it failed every time.
func simulate(_ parameters: [SimParameters], optimum: MeshOptimum? = nil) async -> [SimResult] {
    await runCPUBound { parameters.map { MeshSimulation($0).run(optimum: optimum) } }
}

/// One run of ``simulate(_:optimum:)``.
func simulate(_ parameters: SimParameters, optimum: MeshOptimum? = nil) async -> SimResult {
    await simulate([parameters], optimum: optimum)[0]
}

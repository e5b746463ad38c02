/** Thrown by a scenario that cannot run here (a missing tool it may not install); reported as skipped, not failed. */
export class ScenarioSkip extends Error {}

/** What the sweep runs of the evaluate path: a vehicle's connection-loss step, with the rule cache and evaluators. */
export type { EvaluatorLookup } from '../evaluate-vehicle';
export type { RuleCache } from '../rule-cache';
export { connectionLossStep } from '../connection-loss-step';
export { runVehicleSteps } from '../run-vehicle-steps';

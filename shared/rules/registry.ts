import type { RuleType } from '../schemas/notification';
import { addressEvaluator } from './address';
import { analogSensorEvaluator } from './analog-sensor';
import { connectionLossEvaluator } from './connection-loss';
import { continuousDrivingEvaluator } from './continuous-driving';
import { deviceAlarmEvaluator } from './device-alarm';
import { discreteSensorEvaluator } from './discrete-sensor';
import { drainEvaluator, fuellingEvaluator } from './fuel-change';
import { geozoneEvaluator } from './geozone';
import { idleEvaluator } from './idle';
import { maintenanceEvaluator } from './maintenance';
import { movementEvaluator } from './movement';
import { panicEvaluator } from './panic';
import { parkingEvaluator } from './parking';
import { speedingEvaluator } from './speeding';
import type { RuleEvaluator } from './types';

const evaluators = [
  geozoneEvaluator,
  speedingEvaluator,
  drainEvaluator,
  fuellingEvaluator,
  panicEvaluator,
  connectionLossEvaluator,
  discreteSensorEvaluator,
  analogSensorEvaluator,
  addressEvaluator,
  idleEvaluator,
  maintenanceEvaluator,
  parkingEvaluator,
  movementEvaluator,
  continuousDrivingEvaluator,
  deviceAlarmEvaluator,
] as RuleEvaluator[];

/** The evaluator of every rule type. */
export const RULE_EVALUATORS: Readonly<Record<RuleType, RuleEvaluator>> = Object.fromEntries(
  evaluators.map((evaluator) => [evaluator.type, evaluator]),
) as Record<RuleType, RuleEvaluator>;

export class UnsupportedRuleTypeError extends Error {
  constructor(type: number) {
    super(`rule type ${type} is not supported`);
    this.name = 'UnsupportedRuleTypeError';
  }
}

export function evaluatorFor(type: RuleType): RuleEvaluator {
  const evaluator = RULE_EVALUATORS[type] as RuleEvaluator | undefined;
  if (evaluator === undefined) throw new UnsupportedRuleTypeError(type);
  return evaluator;
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { createRule, newRuleRecord, replaceRule } from '../../shared/store/rules-store';
import { notificationBodySchema } from '../../shared/schemas/notification';
import type { Emulators } from '../../infra/local/emulators';
import { startStreamProjector, type StreamProjector } from '../../infra/local/stream-projector';
import { startTestEmulators } from '../support/emulators';
import { createAgent } from '../../shared/store/directory-store';
import { createEvaluateHandler } from '../../functions/evaluate/handler';
import { alertsInTable, invoke, sqsRecord, terminalMessage } from '../pipeline/support';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { T0 } from '../support/fixtures';

/**
 * Scoped rules (settings.scope client or subtree) on the emulators: the projector and the directory keep the
 * vehicles' items naming them, and evaluation checks the owner chain on every message.
 */

async function ruleRefs(vehicleId: number): Promise<Record<string, number>> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: resourcesConfig().VEHICLE_STATE_TABLE, Key: { vehicleId }, ConsistentRead: true }),
  );
  return (Item?.ruleRefs as Record<string, number> | undefined) ?? {};
}

describe('rule scope', () => {
  let emulators: Emulators;
  let projector: StreamProjector;
  const errors: unknown[] = [];
  beforeAll(async () => {
    emulators = await startTestEmulators('scope');
    projector = await startStreamProjector({ pollIntervalMs: 50, onError: (error) => errors.push(error) });
  });
  afterAll(async () => {
    await projector.stop();
    await emulators.stop();
    expect(errors).toEqual([]);
  });

  async function tree() {
    const parent = await createAgent({ name: 'Holding' });
    const child = await createAgent({ name: 'Branch', parentId: parent.agentId });
    const other = await createAgent({ name: 'Stranger' });
    return { parent: parent.agentId, child: child.agentId, other: other.agentId };
  }

  const register = (vehicleId: number, parentId: string) => registerVehicle({ vehicleId, name: `truck ${vehicleId}`, parentId }, { allowMove: true });
  const scopedRule = (parentId: string, scope: string) =>
    createRule(
      newRuleRecord(
        notificationBodySchema.parse({
          type: 2,
          parentId,
          name: `${scope} speeding`,
          active: true,
          settings: { scope, limit: '90', minDuration: '0' },
        }),
        'Holding',
        T0,
      ),
    );

  it('client covers the vehicles of the rule client only; subtree those of the clients below too; nobody else', async () => {
    const { parent, child, other } = await tree();
    await register(801, parent);
    await register(802, child);
    await register(803, other);
    const client = await scopedRule(parent, 'client');
    const subtree = await scopedRule(parent, 'subtree');
    await projector.idle();
    expect(await ruleRefs(801)).toEqual({ [client.id]: 1, [subtree.id]: 1 });
    expect(await ruleRefs(802)).toEqual({ [subtree.id]: 1 });
    expect(await ruleRefs(803)).toEqual({});
  });

  it('a vehicle registered later is covered at once, without the rule being edited, and alerts', async () => {
    const { parent, child } = await tree();
    const rule = await scopedRule(parent, 'subtree');
    await projector.idle();
    await register(811, child);
    expect(await ruleRefs(811)).toEqual({ [rule.id]: 1 });
    const evaluate = createEvaluateHandler({ clock: () => T0 + 3_600_000 });
    await invoke(evaluate, [sqsRecord(terminalMessage(811, 3_590, 50)), sqsRecord(terminalMessage(811, 3_600, 130))]);
    const alerts = (await alertsInTable()).filter((alert) => alert.vehicleId === 811);
    expect(alerts.map((alert) => [alert.ruleId, (alert.event as { kind: string }).kind])).toEqual([[rule.id, 'speeding']]);
  });

  it('a vehicle moved to another client leaves the scope at once: no alert, the move names the rule, and the ref goes', async () => {
    const { parent, other } = await tree();
    await register(821, parent);
    const rule = await scopedRule(parent, 'client');
    await projector.idle();
    expect(await ruleRefs(821)).toEqual({ [rule.id]: 1 });
    const moved = await register(821, other);
    expect(moved.outcome === 'moved' && moved.rulesNoLongerApplying.map((lost) => lost.id)).toEqual([rule.id]);
    expect(await ruleRefs(821)).toEqual({});
    const evaluate = createEvaluateHandler({ clock: () => T0 + 3_600_000 });
    await invoke(evaluate, [sqsRecord(terminalMessage(821, 3_590, 50)), sqsRecord(terminalMessage(821, 3_600, 130))]);
    expect((await alertsInTable()).filter((alert) => alert.vehicleId === 821)).toEqual([]);
  });

  it('moving down to a child client keeps a subtree rule, drops a client rule; changing the scope moves the refs', async () => {
    const { parent, child } = await tree();
    await register(831, parent);
    const client = await scopedRule(parent, 'client');
    const subtree = await scopedRule(parent, 'subtree');
    await projector.idle();
    const moved = await register(831, child);
    expect(moved.outcome === 'moved' && moved.rulesNoLongerApplying.map((lost) => lost.id)).toEqual([client.id]);
    expect(await ruleRefs(831)).toEqual({ [subtree.id]: 1 });

    await replaceRule({ ...subtree, settings: { ...subtree.settings, scope: 'client' }, version: 2 }, 1);
    await projector.idle();
    expect(await ruleRefs(831)).toEqual({});
    await replaceRule({ ...subtree, settings: { ...subtree.settings, scope: 'subtree' }, version: 3 }, 2);
    await projector.idle();
    expect(await ruleRefs(831)).toEqual({ [subtree.id]: 3 });
  });
});

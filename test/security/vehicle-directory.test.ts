import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError, runAdmin } from '../../infra/admin/commands';
import type { Emulators } from '../../infra/local/emulators';
import { getVehicle } from '../../shared/store/vehicle-registry';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import { startTestEmulators } from '../support/emulators';
import { login, ruleBody, seedTenants, session, typedApiClient, type JsonBody, type TypedApi } from '../api/support';

/**
 * Attack replayed: a client keeps watching a vehicle after the platform registered it to another client. The
 * directory, not the rule, decides who may watch a vehicle: re-registering it under another client is refused
 * unless asked for (`--move`), and a move says which rules stop applying to it. The platform's own vehicle
 * records can be imported in bulk, idempotently, with moves reported.
 */
describe('security: the vehicle directory', () => {
  let emulators: Emulators;
  let api: TypedApi;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let rootToken: string;
  const directory = mkdtempSync(join(tmpdir(), 'fleetwatch-vehicles-'));

  beforeAll(async () => {
    emulators = await startTestEmulators('sec-directory');
    tenants = await seedTenants('secdir');
    api = typedApiClient();
    rootToken = await login(api, tenants.root);
  });
  afterAll(async () => emulators.stop());

  const createRule = (token: string, vehicleIds: number[], name: string) =>
    api.POST('/api/v3/notifications', {
      headers: session(token),
      body: ruleBody(tenants.root.agentId, { vehicleIds, name }) as JsonBody<'createNotificationRule'>,
    });

  it('refuses to move a vehicle of another client without --move, and names the rules a move ends', async () => {
    await runAdmin(['create-vehicle', '--client', tenants.root.agentId, '--id', '4100', '--name', 'Reefer 4100']);
    const watching = (await createRule(rootToken, [4100], 'Reefer speeding')).data!;
    await expect(runAdmin(['create-vehicle', '--client', tenants.sibling.agentId, '--id', '4100', '--name', 'Reefer 4100'])).rejects.toThrow(
      UsageError,
    );
    await expect(runAdmin(['create-vehicle', '--client', tenants.sibling.agentId, '--id', '4100', '--name', 'Reefer 4100'])).rejects.toThrow(
      /--move/,
    );
    expect((await getVehicle(4100))?.parentId).toBe(tenants.root.agentId);

    const moved = await runAdmin(['create-vehicle', '--client', tenants.sibling.agentId, '--id', '4100', '--name', 'Reefer 4100', '--move']);
    expect(moved).toMatchObject({ outcome: 'moved', movedFrom: tenants.root.agentId, parentId: tenants.sibling.agentId });
    expect(moved.rulesNoLongerApplying).toEqual([{ id: watching.id, name: 'Reefer speeding', parentId: tenants.root.agentId }]);
    expect(String(moved.note)).toContain(`${watching.id} "Reefer speeding"`);
    // the former owner can no longer name it in a rule
    expect((await createRule(rootToken, [4100], 'again')).response.status).toBe(400);
  });

  it("tells evaluation the vehicle's owner chain (and the journal its zone sets) when it is created and moved", async () => {
    await runAdmin(['create-vehicle', '--client', tenants.child.agentId, '--id', '4150', '--name', 'Cab 4150']);
    let item = await loadVehicleState(4150);
    expect(item.projection.owners).toEqual([tenants.child.agentId, tenants.root.agentId]);
    expect(Object.keys(item.projection.zoneSets ?? {}).sort()).toEqual([tenants.child.agentId, tenants.root.agentId].sort());
    await runAdmin(['create-vehicle', '--client', tenants.sibling.agentId, '--id', '4150', '--name', 'Cab 4150', '--move']);
    item = await loadVehicleState(4150);
    expect(item.projection.owners).toEqual([tenants.sibling.agentId]);
    expect(Object.keys(item.projection.zoneSets ?? {})).toEqual([tenants.sibling.agentId]);
  });

  it("completes, when run again, a registration whose write to the vehicle's state item failed", async () => {
    await runAdmin(['create-vehicle', '--client', tenants.child.agentId, '--id', '4160', '--name', 'Cab 4160']);
    // the state item as a failed second write leaves it: the directory knows the vehicle, evaluation does not
    await documentClient().send(
      new UpdateCommand({
        TableName: resourcesConfig().VEHICLE_STATE_TABLE,
        Key: { vehicleId: 4160 },
        UpdateExpression: 'REMOVE owners, #owner, zoneSets',
        ExpressionAttributeNames: { '#owner': 'owner' },
      }),
    );
    expect((await loadVehicleState(4160)).projection.owners).toEqual([]);
    expect(await runAdmin(['create-vehicle', '--client', tenants.child.agentId, '--id', '4160', '--name', 'Cab 4160'])).toMatchObject({
      outcome: 'unchanged',
    });
    const item = await loadVehicleState(4160);
    expect(item.projection.owners).toEqual([tenants.child.agentId, tenants.root.agentId]);
    // a complete item is left alone: no version moves
    await runAdmin(['create-vehicle', '--client', tenants.child.agentId, '--id', '4160', '--name', 'Cab 4160']);
    expect((await loadVehicleState(4160)).version).toBe(item.version);
  });

  it('moving a vehicle down to a child client keeps the parent client rules applying', async () => {
    await runAdmin(['create-vehicle', '--client', tenants.root.agentId, '--id', '4200', '--name', 'Van 4200']);
    await createRule(rootToken, [4200], 'Van speeding');
    const moved = await runAdmin(['create-vehicle', '--client', tenants.child.agentId, '--id', '4200', '--name', 'Van 4200', '--move']);
    expect(moved.rulesNoLongerApplying).toEqual([]);
  });

  it("imports the platform's vehicle records idempotently and reports moves and bad records", async () => {
    await runAdmin(['create-vehicle', '--client', tenants.root.agentId, '--id', '4300', '--name', 'Tipper 4300']);
    const rule = (await createRule(rootToken, [4300], 'Tipper idle')).data!;
    const file = join(directory, 'vehicles.json');
    const record = (vehicleId: number, name: string, parentId: string) => ({
      vehicleId,
      name,
      parentId,
      imei: '356938035643809',
      status: 1,
      parentName: 'x',
    });
    writeFileSync(
      file,
      JSON.stringify([
        record(4301, 'Tipper 4301', tenants.root.agentId),
        record(4302, 'Tipper 4302', tenants.child.agentId),
        record(4300, 'Tipper 4300', tenants.sibling.agentId),
        { vehicleId: 'x', name: '' },
        record(4303, 'Ghost', '9b2f4c1e-8f8a-4a57-9f57-2d6f0f7b2a11'),
      ]),
    );
    const first = await runAdmin(['import-vehicles', '--file', file]);
    expect(first).toMatchObject({ created: 2, renamed: 0, unchanged: 0 });
    expect(first.moved).toEqual([
      {
        vehicleId: 4300,
        from: tenants.root.agentId,
        to: tenants.sibling.agentId,
        rulesNoLongerApplying: [{ id: rule.id, name: 'Tipper idle', parentId: tenants.root.agentId }],
      },
    ]);
    expect((first.rejected as { index: number }[]).map((entry) => entry.index)).toEqual([3, 4]);

    const again = await runAdmin(['import-vehicles', '--file', file]);
    expect(again).toMatchObject({ created: 0, renamed: 0, unchanged: 3, moved: [] });
    expect((await getVehicle(4302))?.parentId).toBe(tenants.child.agentId);
  });
});

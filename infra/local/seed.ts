import { randomBytes } from 'node:crypto';
import { initialValidity } from '../../shared/rules/lifecycle';
import { anchorAt } from '../../shared/delivery/on-call';
import { limits } from '../../shared/api/limits';
import { createRota, listRotas, newRotaId } from '../../shared/store/rotas-store';
import { geozoneMeasures } from '../../shared/api/geozone-measures';
import { createAgent, createUser, findUserByLogin, getAgent } from '../../shared/store/directory-store';
import { markSideEmailConfirmed } from '../../shared/store/email-consent/confirmation';
import { createGeozone, listGeozonesOfClient } from '../../shared/store/geozones-store';
import { createRule, listRulesOfClient } from '../../shared/store/rules-store';
import { createWebhook, deleteWebhook, listWebhooksWithSecrets } from '../../shared/store/webhooks-store';
import type { StoredWebhook } from '../../shared/schemas/webhook';
import { geozoneBodySchema } from '../../shared/schemas/geozone';
import { notificationBodySchema, RULE_TYPES, type NotificationBody } from '../../shared/schemas/notification';
import { depotYardRing, type SimulatedVehicle } from './simulator';
import { registerVehicle } from '../../shared/store/vehicle-registry';
import { DEMO } from './demo';

/**
 * Demo data for the local runtime: a client, a user who can log in, the simulated vehicles, the depot yard
 * and a few rules that the simulated fleet trips. It goes through the same stores as the API and the admin
 * CLI. Seeding is idempotent: the demo user is found by login and its client reused, geozones and rules are
 * matched by name within that client, so restarts keep whatever was changed through the API.
 */

export interface DemoData {
  agentId: string;
  userId: string;
  login: string;
  password: string;
  vehicleIds: number[];
  geozoneId: number;
  /** The duty rota that the speeding rule's second escalation level goes to. */
  rotaId: string;
  rules: Array<{ id: number; name: string; type: number }>;
  /** What this run created; empty when everything was already there. */
  created: string[];
}

async function seedClientAndUser(created: string[]): Promise<{ agentId: string; agentName: string; userId: string }> {
  const existing = await findUserByLogin(DEMO.login);
  if (existing) {
    const agent = await getAgent(existing.parentId);
    return { agentId: existing.parentId, agentName: agent?.name ?? DEMO.clientName, userId: existing.id };
  }
  const agent = await createAgent({ name: DEMO.clientName, fullName: 'Demo Logistics LLC' });
  created.push(`client ${agent.name}`);
  const user = await createUser({
    parentId: agent.agentId,
    login: DEMO.login,
    password: DEMO.password,
    email: DEMO.email,
    firstName: 'Demo',
    lastName: 'Operator',
    language: 2,
  });
  created.push(`user ${user.login}`);
  return { agentId: agent.agentId, agentName: agent.name, userId: user.id };
}

async function seedGeozone(agentId: string, now: number, created: string[]): Promise<number> {
  const existing = (await listGeozonesOfClient(agentId)).find((zone) => zone.name === DEMO.geozoneName);
  if (existing) return existing.id;
  const body = geozoneBodySchema.parse({
    name: DEMO.geozoneName,
    type: 'polygon',
    parentId: agentId,
    description: 'Yard of the simulated depot; the courier truck leaves it on every round.',
    geometry: { type: 'Polygon', coordinates: [depotYardRing()] },
  });
  const zone = await createGeozone({ ...body, ...geozoneMeasures(body.geometry, body.radius), createDate: new Date(now).toISOString() });
  created.push(`geozone ${zone.name}`);
  return zone.id;
}

/** The dispatcher who takes turns on the duty rota with the demo user; its password is never printed nor used. */
async function seedDispatcher(agentId: string, created: string[]): Promise<string> {
  const existing = await findUserByLogin(DEMO.dispatcherLogin);
  if (existing) return existing.id;
  const user = await createUser({
    parentId: agentId,
    login: DEMO.dispatcherLogin,
    password: randomBytes(24).toString('base64url'),
    email: DEMO.dispatcherEmail,
    firstName: 'Night',
    lastName: 'Dispatcher',
    language: 2,
  });
  created.push(`user ${user.login}`);
  return user.id;
}

/** The duty rota: the demo user and the dispatcher hand over every day at 08:00 Baku time. */
async function seedRota(agentId: string, participants: string[], now: number, created: string[]): Promise<string> {
  const existing = (await listRotas(agentId)).find((rota) => rota.name === DEMO.rotaName);
  if (existing) return existing.id;
  const stamp = new Date(now).toISOString();
  const handoff = { every: 'day', at: '08:00' } as const;
  const rota = await createRota(
    {
      id: newRotaId(agentId),
      parentId: agentId,
      name: DEMO.rotaName,
      timezone: 'Asia/Baku',
      participants,
      handoff,
      anchor: anchorAt(handoff, 'Asia/Baku', now),
      overrides: [],
      version: 1,
      createdAt: stamp,
      createdBy: DEMO.login,
      updatedAt: stamp,
    },
    limits().rotasPerClient,
  );
  created.push(`rota ${rota.name}`);
  return rota.id;
}

/** The demo rules. Settings keys follow the evaluators in shared/rules. */
export function demoRules(owner: { agentId: string; userId: string }, vehicleIds: number[], geozoneId: number, rotaId: string): NotificationBody[] {
  const common = {
    parentId: owner.agentId,
    userId: owner.userId,
    active: true,
    vehicleIds,
    stored: true,
    toClient: true,
    timezone: 'Asia/Baku',
    validity: 90,
    autoProlongation: true,
  };
  return [
    notificationBodySchema.parse({
      ...common,
      type: RULE_TYPES.speeding,
      name: `Speeding over ${DEMO.speedLimitKmh} km/h`,
      // the simulated speeder slows down for ~18 s between episodes: endDuration 10 lets each episode end;
      // an alert nobody acknowledges goes up a two-level chain: the duty mailbox after a minute, then whoever
      // of the duty rota is on call after two
      settings: {
        limit: String(DEMO.speedLimitKmh),
        minDuration: '10',
        endDuration: '10',
        escalation: JSON.stringify([
          { after: DEMO.escalateAfterMinutes, emails: [DEMO.dutyEmail] },
          { after: DEMO.rotaAfterMinutes, rotaIds: [rotaId] },
        ]),
      },
      enableSideEmails: true,
      sideEmails: [DEMO.opsEmail],
    }),
    notificationBodySchema.parse({
      ...common,
      type: RULE_TYPES.geozone,
      name: 'Left the depot yard',
      geoids: [geozoneId],
      settings: { mode: 'exit' },
      toEmail: true,
      recipientIds: [owner.userId],
    }),
    notificationBodySchema.parse({
      ...common,
      type: RULE_TYPES.idle,
      name: 'Idling over 3 minutes outside the depot yard',
      // a zone condition: engines run in the yard while loading, that is not idling worth a message
      settings: { minutes: '3', zones: String(geozoneId), zoneMode: 'outside' },
      toEmail: true,
      recipientIds: [owner.userId],
    }),
    notificationBodySchema.parse({
      ...common,
      type: RULE_TYPES.parking,
      name: 'Parked with the engine off over 1 minute',
      settings: { minutes: '1', ignition: 'off', notifyEnd: 'true' },
      toEmail: true,
      recipientIds: [owner.userId],
    }),
    notificationBodySchema.parse({
      ...common,
      type: RULE_TYPES.movement,
      name: 'Moved with the ignition off',
      settings: { ignitionOff: 'true', minStop: '1', distance: '50', confirmFixes: '2' },
      toEmail: true,
      recipientIds: [owner.userId],
    }),
    notificationBodySchema.parse({
      ...common,
      type: RULE_TYPES.continuousDriving,
      // minutes instead of hours, so that a demo session sees it: the speeder never stops, the van rests at every stop
      name: 'Driving 15 minutes without a 3-minute rest',
      settings: { hours: '0.25', restMinutes: '3', warnBefore: '5' },
      toEmail: true,
      recipientIds: [owner.userId],
    }),
    notificationBodySchema.parse({
      ...common,
      type: RULE_TYPES.deviceAlarm,
      name: 'Device alarms',
      // every vehicle of the demo client, those registered later too
      vehicleIds: [],
      settings: { scope: 'client' },
      toEmail: true,
      recipientIds: [owner.userId],
    }),
  ];
}

async function seedRules(
  owner: { agentId: string; agentName: string; userId: string },
  vehicleIds: number[],
  geozoneId: number,
  rotaId: string,
  now: number,
  created: string[],
): Promise<DemoData['rules']> {
  const existing = new Map((await listRulesOfClient(owner.agentId)).map((rule) => [rule.name, rule]));
  const rules: DemoData['rules'] = [];
  for (const body of demoRules(owner, vehicleIds, geozoneId, rotaId)) {
    const known = existing.get(body.name);
    if (known) {
      rules.push({ id: known.id, name: known.name, type: known.type });
      continue;
    }
    const stamp = new Date(now).toISOString();
    const rule = await createRule({
      ...body,
      parentName: owner.agentName,
      version: 1,
      createdAt: stamp,
      updatedAt: stamp,
      ...initialValidity(body, now),
    });
    created.push(`rule ${rule.name}`);
    rules.push({ id: rule.id, name: rule.name, type: rule.type });
  }
  return rules;
}

/** Seeds the demo client, user, vehicles, depot geozone and rules; safe to run on every start. */
export async function seedDemoData(fleet: readonly SimulatedVehicle[], now: number = Date.now()): Promise<DemoData> {
  const created: string[] = [];
  const owner = await seedClientAndUser(created);
  for (const vehicle of fleet) {
    await registerVehicle({ vehicleId: vehicle.vehicleId, name: vehicle.name, parentId: owner.agentId }, { allowMove: true });
  }
  const geozoneId = await seedGeozone(owner.agentId, now, created);
  const vehicleIds = fleet.map((vehicle) => vehicle.vehicleId);
  const dispatcherId = await seedDispatcher(owner.agentId, created);
  const rotaId = await seedRota(owner.agentId, [owner.userId, dispatcherId], now, created);
  const rules = await seedRules(owner, vehicleIds, geozoneId, rotaId, now, created);
  // the local operations and duty inboxes are the demo's own: vouched for here instead of through a confirmation link
  for (const address of [DEMO.opsEmail, DEMO.dutyEmail]) await markSideEmailConfirmed(owner.agentId, address, now);
  return {
    agentId: owner.agentId,
    userId: owner.userId,
    login: DEMO.login,
    password: DEMO.password,
    vehicleIds,
    geozoneId,
    rotaId,
    rules,
    created,
  };
}

/**
 * The demo client's webhook endpoint at the local receiver (the demo rules have `toClient`, so their alerts are
 * posted to it). Kept when it already points at `url`; an earlier run's endpoint at another address is replaced.
 * Returns the endpoint with its secret, which the local receiver checks signatures with.
 */
export async function seedDemoWebhook(agentId: string, url: string, now: number = Date.now()): Promise<StoredWebhook> {
  const demoEndpoints = (await listWebhooksWithSecrets(agentId)).filter((endpoint) => endpoint.description === DEMO.webhookDescription);
  const current = demoEndpoints.find((endpoint) => endpoint.url === url && endpoint.enabled);
  for (const endpoint of demoEndpoints) if (endpoint !== current) await deleteWebhook(agentId, endpoint.id);
  return current ?? createWebhook({ parentId: agentId, url, description: DEMO.webhookDescription }, now);
}

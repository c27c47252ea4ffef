import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import { getVehicle } from '../../shared/store/vehicle-registry';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, ruleBody, seedTenants, session, typedApiClient, type Api, type JsonBody, type TypedApi } from './support';

/**
 * The directory endpoints on DynamoDB Local: an integrator finds its own ids, and keeps fleetwatch's clients'
 * users and vehicles in step with the platform. Attacks replayed: reading or taking over another tenant's
 * users and vehicles by id, a read-only user writing, and a vehicle silently moved between clients.
 */
describe('directory endpoints', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: TypedApi;
  /** For the requests the typed client cannot express: unknown fields, and the document read as plain JSON. */
  let rawApi: Api;
  let root: string;
  let sibling: string;
  let viewer: string;
  const clock = new TestClock();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-directory');
    tenants = await seedTenants('dir');
    api = typedApiClient({ now: clock.now });
    rawApi = apiClient({ now: clock.now });
    root = await login(api, tenants.root);
    sibling = await login(api, tenants.sibling);
    viewer = await login(api, tenants.readOnly);
  });
  afterAll(async () => emulators.stop());

  const findAgents = (token: string, parentId: string | null) => api.POST('/api/v3/agents/find', { headers: session(token), body: { parentId } });
  const getAgent = (token: string, id: string) => api.GET('/api/v3/agents/{id}', { headers: session(token), params: { path: { id } } });
  const findUsers = (token: string, body: JsonBody<'findUsers'>) => api.POST('/api/v3/users/find', { headers: session(token), body });
  const getUser = (token: string, id: string) => api.GET('/api/v3/users/{id}', { headers: session(token), params: { path: { id } } });
  const createUser = (token: string, body: JsonBody<'createUser'>) => api.POST('/api/v3/users', { headers: session(token), body });
  const replaceUser = (token: string, body: JsonBody<'replaceUser'>) => api.PUT('/api/v3/users', { headers: session(token), body });
  /** The filters fleetwatch stores, the ones the typed client can send (see the raw request below for the others). */
  type VehicleFilters = Omit<JsonBody<'findVehicles'>, 'imei' | 'sim' | 'deviceTypeId' | 'unitId' | 'customFields'>;
  const findVehicles = (token: string, body: VehicleFilters) => api.POST('/api/v3/vehicles/find', { headers: session(token), body });
  const createVehicle = (token: string, body: JsonBody<'registerVehicle'>) => api.POST('/api/v3/vehicles', { headers: session(token), body });
  const replaceVehicle = (token: string, body: JsonBody<'replaceVehicle'>) => api.PUT('/api/v3/vehicles', { headers: session(token), body });

  describe('auth/check', () => {
    it('names the caller and its client', async () => {
      const check = await api.GET('/api/v3/auth/check', { headers: session(root) });
      expect(check.response.status).toBe(200);
      expect(check.data).toEqual({ expiresAt: expect.any(String), userId: tenants.root.userId, parentId: tenants.root.agentId });
    });
  });

  describe('clients', () => {
    it('finds the own client and the clients below it, never another tenant', async () => {
      const found = await findAgents(root, null);
      expect(found.response.status).toBe(200);
      expect(found.data?.map((agent) => agent.agentId)).toEqual([tenants.root.agentId, tenants.child.agentId]);
      expect(found.data?.[1]).toEqual({
        agentId: tenants.child.agentId,
        parentId: tenants.root.agentId,
        name: 'dir Child Depot',
        fullName: '',
        agentInfoType: 0,
        status: 1,
      });
      const fromChild = await findAgents(root, tenants.child.agentId);
      expect(fromChild.data?.map((agent) => agent.agentId)).toEqual([tenants.child.agentId]);
    });

    it('answers 404 for another tenant on find and get', async () => {
      expect((await findAgents(root, tenants.sibling.agentId)).response.status).toBe(404);
      expect((await getAgent(root, tenants.sibling.agentId)).response.status).toBe(404);
    });

    it('reads a client with its parent name', async () => {
      const child = await getAgent(root, tenants.child.agentId);
      expect(child.response.status).toBe(200);
      expect(child.data).toMatchObject({
        agentId: tenants.child.agentId,
        parentId: tenants.root.agentId,
        parentName: 'dir Root Logistics',
        name: 'dir Child Depot',
      });
    });
  });

  describe('users', () => {
    it('finds the users of the scope by filter, never another tenant, never a secret', async () => {
      const all = await findUsers(root, {});
      expect(all.response.status).toBe(200);
      const logins = all.data?.map((user) => user.login);
      expect(logins).toEqual(expect.arrayContaining([tenants.root.login, tenants.child.login, tenants.readOnly.login]));
      expect(logins).not.toContain(tenants.sibling.login);
      const byLogin = await findUsers(root, { login: tenants.child.login.toUpperCase(), email: null });
      expect(byLogin.data).toEqual([
        {
          id: tenants.child.userId,
          login: tenants.child.login,
          email: 'child@dir.example.com',
          firstName: '',
          lastName: '',
          parentId: tenants.child.agentId,
          parentName: 'dir Child Depot',
          sessionDuration: null,
        },
      ]);
      const byEmail = await findUsers(root, { email: 'viewer@dir.example.com' });
      expect(byEmail.data?.map((user) => user.id)).toEqual([tenants.readOnly.userId]);
      const foreign = await findUsers(root, { userId: tenants.sibling.userId });
      expect(foreign.data).toEqual([]);
      const foreignClient = await findUsers(root, { parentId: tenants.sibling.agentId });
      expect(foreignClient.response.status).toBe(404);
    });

    it('reads a user of the scope without password, sessions or channels; another tenant is 404', async () => {
      const user = await getUser(root, tenants.child.userId);
      expect(user.response.status).toBe(200);
      expect(Object.keys(user.data!).sort()).toEqual(
        [
          'email',
          'firstName',
          'id',
          'isEnabled',
          'isReadOnly',
          'language',
          'lastName',
          'login',
          'parentId',
          'parentName',
          'phoneNumber',
          'phoneVerified',
          'sessionDuration',
        ].sort(),
      );
      expect((await getUser(root, tenants.sibling.userId)).response.status).toBe(404);
      expect((await getUser(sibling, tenants.root.userId)).response.status).toBe(404);
    });

    it('creates a user who can log in, and refuses a taken login in any letter case', async () => {
      const body = {
        login: 'dir-new-driver',
        password: 'a long enough password',
        email: 'driver@dir.example.com',
        firstName: 'Ada',
        parentId: tenants.child.agentId,
      };
      const created = await createUser(root, body);
      expect(created.response.status).toBe(200);
      expect(created.data).toMatchObject({
        login: 'dir-new-driver',
        firstName: 'Ada',
        parentId: tenants.child.agentId,
        parentName: 'dir Child Depot',
        isEnabled: true,
      });
      expect(created.data).not.toHaveProperty('password');
      expect(await login(api, { ...tenants.child, login: 'dir-new-driver', password: 'a long enough password' })).toEqual(expect.any(String));
      const taken = await createUser(root, { ...body, login: 'DIR-NEW-DRIVER' });
      expect(taken.response.status).toBe(409);
      const takenOfOther = await createUser(root, { ...body, login: tenants.sibling.login });
      expect(takenOfOther.response.status).toBe(409);
    });

    it('creates a user only under a client of the scope', async () => {
      const body = { login: 'dir-intruder', password: 'a long enough password', email: 'x@dir.example.com', parentId: tenants.sibling.agentId };
      expect((await createUser(root, body)).response.status).toBe(404);
      expect((await findUsers(sibling, { login: 'dir-intruder' })).data).toEqual([]);
    });

    it('replaces a user read with GET (GET-edit-PUT), login and password included', async () => {
      const created = (
        await createUser(root, {
          login: 'dir-editable',
          password: 'first password!',
          email: 'edit@dir.example.com',
          firstName: 'Old',
          lastName: 'Name',
        })
      ).data!;
      expect(created.parentId).toBe(tenants.root.agentId);
      const read = await getUser(root, created.id);
      const edited = { ...read.data!, firstName: 'New', login: 'dir-edited', password: 'second password!', parentId: tenants.child.agentId };
      const replaced = await replaceUser(root, edited);
      expect(replaced.response.status).toBe(200);
      expect(replaced.data).toMatchObject({
        id: created.id,
        login: 'dir-edited',
        firstName: 'New',
        lastName: 'Name',
        parentId: tenants.child.agentId,
      });
      const oldLogin = await api.POST('/api/v3/auth/login', { body: { login: 'dir-editable', password: 'first password!' } });
      expect(oldLogin.response.status).toBe(401);
      expect(await login(api, { ...tenants.child, login: 'dir-edited', password: 'second password!' })).toEqual(expect.any(String));
      const childUsers = await findUsers(root, { parentId: tenants.child.agentId, login: 'dir-edited' });
      expect(childUsers.data?.map((user) => user.id)).toEqual([created.id]);
      // a field not sent takes its default; null login, password and email stay
      const minimal = await replaceUser(root, { id: created.id, parentId: tenants.child.agentId, login: null, email: null });
      expect(minimal.data).toMatchObject({ login: 'dir-edited', email: 'edit@dir.example.com', firstName: '', lastName: '' });
    });

    it('refuses a replacement onto a taken login, and of another tenant (404)', async () => {
      const taken = await replaceUser(root, { id: tenants.child.userId, parentId: tenants.child.agentId, login: tenants.root.login });
      expect(taken.response.status).toBe(409);
      const foreign = await replaceUser(root, { id: tenants.sibling.userId, parentId: tenants.root.agentId, password: 'hijacked password' });
      expect(foreign.response.status).toBe(404);
      expect(await login(api, tenants.sibling)).toEqual(expect.any(String));
    });
  });

  describe('vehicles', () => {
    it('finds the vehicles of the scope by filter, never another tenant', async () => {
      // raw: openapi-fetch's body type turns a property the document types as null alone into undefined, so the
      // typed client cannot send imei: null
      const all = await rawApi({
        method: 'POST',
        path: '/api/v3/vehicles/find',
        token: root,
        body: { vehicleId: null, name: null, parentId: null, imei: null },
      });
      expect(all.status).toBe(200);
      expect(all.body.filter((vehicle: { vehicleId: number }) => [101, 202, 303].includes(vehicle.vehicleId))).toEqual([
        { vehicleId: 101, name: 'Truck 101', parentId: tenants.root.agentId, parentName: 'dir Root Logistics' },
        { vehicleId: 303, name: 'Van 303', parentId: tenants.child.agentId, parentName: 'dir Child Depot' },
      ]);
      const byName = await findVehicles(root, { name: 'VAN' });
      expect(byName.data?.map((vehicle) => vehicle.vehicleId)).toEqual([303]);
      const byParent = await findVehicles(root, { parentId: tenants.root.agentId });
      expect(byParent.data?.map((vehicle) => vehicle.vehicleId)).not.toContain(303);
      expect((await findVehicles(root, { vehicleId: 202 })).data).toEqual([]);
      expect((await findVehicles(root, { parentId: tenants.sibling.agentId })).response.status).toBe(404);
    });

    it('pages with offset and limit, and bounds the page size', async () => {
      const first = await findVehicles(root, { limit: 1 });
      const second = await findVehicles(root, { limit: 1, offset: 1 });
      expect(first.data).toHaveLength(1);
      expect(second.data).toHaveLength(1);
      expect(second.data![0]!.vehicleId).toBeGreaterThan(first.data![0]!.vehicleId);
      const tooLarge = await findVehicles(root, { limit: 1_001 });
      expect(tooLarge.response.status).toBe(400);
      expect(tooLarge.error?.issues?.[0]?.path).toBe('limit');
    });

    it('registers a vehicle with its owner chain and zone sets, as the admin CLI does', async () => {
      const created = await createVehicle(root, { vehicleId: 5101, name: 'Reefer 5101', parentId: tenants.child.agentId });
      expect(created.response.status).toBe(200);
      expect(created.data).toEqual({ vehicleId: 5101, name: 'Reefer 5101', parentId: tenants.child.agentId, parentName: 'dir Child Depot' });
      const { projection } = await loadVehicleState(5101);
      expect(projection.owners).toEqual([tenants.child.agentId, tenants.root.agentId]);
      expect(Object.keys(projection.zoneSets ?? {}).sort()).toEqual([tenants.child.agentId, tenants.root.agentId].sort());
      const found = await findVehicles(root, { vehicleId: 5101 });
      expect(found.data).toEqual([created.data]);
      const renamed = await replaceVehicle(root, { ...created.data!, name: 'Reefer 5101 (new body)' });
      expect(renamed.response.status).toBe(200);
      expect((await getVehicle(5101))?.name).toBe('Reefer 5101 (new body)');
    });

    it("refuses another tenant's vehicle with 409, even with allowMove, and leaves it where it is", async () => {
      for (const allowMove of [false, true]) {
        const taken = await createVehicle(root, { vehicleId: 202, name: 'Mine now', allowMove });
        expect(taken.response.status).toBe(409);
        expect(taken.error?.message).not.toContain(tenants.sibling.agentId);
      }
      const replaced = await replaceVehicle(root, { vehicleId: 202, name: 'Mine now', parentId: tenants.root.agentId, allowMove: true });
      expect(replaced.response.status).toBe(404);
      expect(await getVehicle(202)).toEqual({ vehicleId: 202, name: 'Truck 202', parentId: tenants.sibling.agentId });
      expect((await loadVehicleState(202)).projection.owners).toEqual([tenants.sibling.agentId]);
    });

    it('moves a vehicle within the scope only with allowMove, and names the rules that stop applying', async () => {
      await createVehicle(root, { vehicleId: 5202, name: 'Bus 5202', parentId: tenants.child.agentId });
      const rule = await api.POST('/api/v3/notifications', {
        headers: session(root),
        body: ruleBody(tenants.child.agentId, { vehicleIds: [5202] }) as JsonBody<'createNotificationRule'>,
      });
      expect(rule.response.status).toBe(200);
      const refused = await createVehicle(root, { vehicleId: 5202, name: 'Bus 5202', parentId: tenants.root.agentId });
      expect(refused.response.status).toBe(409);
      expect(refused.error?.message).toContain('allowMove');
      const refusedPut = await replaceVehicle(root, { vehicleId: 5202, name: 'Bus 5202', parentId: tenants.root.agentId });
      expect(refusedPut.response.status).toBe(409);
      expect((await getVehicle(5202))?.parentId).toBe(tenants.child.agentId);
      const moved = await replaceVehicle(root, {
        vehicleId: 5202,
        name: 'Bus 5202',
        parentId: tenants.root.agentId,
        parentName: 'ignored',
        allowMove: true,
      });
      expect(moved.response.status).toBe(200);
      expect(moved.data).toMatchObject({
        vehicleId: 5202,
        parentId: tenants.root.agentId,
        rulesNoLongerApplying: [{ id: rule.data?.id, parentId: tenants.child.agentId }],
      });
      expect((await loadVehicleState(5202)).projection.owners).toEqual([tenants.root.agentId]);
    });

    it('refuses vehicle and user writes of a read-only user with 403', async () => {
      const vehicle = await createVehicle(viewer, { vehicleId: 5303, name: 'Sneaky' });
      expect(vehicle.response.status).toBe(403);
      expect(vehicle.error?.error).toBe('Forbidden');
      const user = await createUser(viewer, { login: 'dir-sneaky', password: 'a long enough password', email: 's@dir.example.com' });
      expect(user.response.status).toBe(403);
      const self = await replaceUser(viewer, { id: tenants.readOnly.userId, parentId: tenants.root.agentId, isReadOnly: false });
      expect(self.response.status).toBe(403);
      expect(await getVehicle(5303)).toBeNull();
      expect((await findVehicles(viewer, {})).response.status).toBe(200);
    });
  });

  describe('request bodies', () => {
    it('refuse unknown fields with a 400 naming them', async () => {
      const cases = [
        { path: '/api/v3/vehicles', method: 'POST', body: { vehicleId: 5404, name: 'Truck', color: 'red' }, field: 'color' },
        { path: '/api/v3/users/find', method: 'POST', body: { logn: 'x' }, field: 'logn' },
        { path: '/api/v3/agents/find', method: 'POST', body: { parent: null }, field: 'parent' },
        { path: '/api/v3/vehicles/find', method: 'POST', body: { imei: '35000' }, field: 'imei' },
      ] as const;
      for (const { path, method, body, field } of cases) {
        // raw: unknown fields, which the typed client cannot send
        const response = await rawApi({ method, path, token: root, body });
        expect(response.status, path).toBe(400);
        expect(response.body.message, path).toContain(field);
      }
      expect(await getVehicle(5404)).toBeNull();
    });
  });

  describe('OpenAPI document', () => {
    it('shows each directory operation with a request and response example', async () => {
      // raw: the document is inspected as plain JSON, not through the types generated from it
      const document = (await rawApi({ method: 'GET', path: '/api/v3/openapi.json' })).body;
      const operations = [
        ['post', '/api/v3/agents/find'],
        ['get', '/api/v3/agents/{id}'],
        ['post', '/api/v3/users/find'],
        ['get', '/api/v3/users/{id}'],
        ['post', '/api/v3/users'],
        ['put', '/api/v3/users'],
        ['post', '/api/v3/vehicles/find'],
        ['post', '/api/v3/vehicles'],
        ['put', '/api/v3/vehicles'],
        ['get', '/api/v3/auth/check'],
      ] as const;
      for (const [method, path] of operations) {
        const operation = document.paths[path][method];
        if (method !== 'get') expect(operation.requestBody.content['application/json'].schema.example, `${method} ${path}`).toBeDefined();
        expect(operation.responses['200'].content['application/json'].schema.example, `${method} ${path}`).toBeDefined();
      }
      expect(document.paths['/api/v3/auth/check'].get.responses['200'].content['application/json'].schema.properties).toHaveProperty('userId');
    });
  });
});

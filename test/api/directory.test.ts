import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVehicleState } from '../../shared/store/vehicle-state-store';
import { getVehicle } from '../../shared/store/vehicle-registry';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { TestClock, apiClient, login, ruleBody, seedTenants, type Api } from './support';

/**
 * The directory endpoints on DynamoDB Local: an integrator finds its own ids, and keeps fleetwatch's clients'
 * users and vehicles in step with the platform. Attacks replayed: reading or taking over another tenant's
 * users and vehicles by id, a read-only user writing, and a vehicle silently moved between clients.
 */
describe('directory endpoints', () => {
  let emulators: Emulators;
  let tenants: Awaited<ReturnType<typeof seedTenants>>;
  let api: Api;
  let root: string;
  let sibling: string;
  let viewer: string;
  const clock = new TestClock();

  beforeAll(async () => {
    emulators = await startTestEmulators('api-directory');
    tenants = await seedTenants('dir');
    api = apiClient({ now: clock.now });
    root = await login(api, tenants.root);
    sibling = await login(api, tenants.sibling);
    viewer = await login(api, tenants.readOnly);
  });
  afterAll(async () => emulators.stop());

  describe('auth/check', () => {
    it('names the caller and its client', async () => {
      const check = await api({ method: 'GET', path: '/api/v3/auth/check', token: root });
      expect(check.status).toBe(200);
      expect(check.body).toEqual({ expiresAt: expect.any(String), userId: tenants.root.userId, parentId: tenants.root.agentId });
    });
  });

  describe('clients', () => {
    it('finds the own client and the clients below it, never another tenant', async () => {
      const found = await api({ method: 'POST', path: '/api/v3/agents/find', token: root, body: { parentId: null } });
      expect(found.status).toBe(200);
      expect(found.body.map((agent: { agentId: string }) => agent.agentId)).toEqual([tenants.root.agentId, tenants.child.agentId]);
      expect(found.body[1]).toEqual({
        agentId: tenants.child.agentId,
        parentId: tenants.root.agentId,
        name: 'dir Child Depot',
        fullName: '',
        agentInfoType: 0,
        status: 1,
      });
      const fromChild = await api({ method: 'POST', path: '/api/v3/agents/find', token: root, body: { parentId: tenants.child.agentId } });
      expect(fromChild.body.map((agent: { agentId: string }) => agent.agentId)).toEqual([tenants.child.agentId]);
    });

    it('answers 404 for another tenant on find and get', async () => {
      expect((await api({ method: 'POST', path: '/api/v3/agents/find', token: root, body: { parentId: tenants.sibling.agentId } })).status).toBe(404);
      expect((await api({ method: 'GET', path: `/api/v3/agents/${tenants.sibling.agentId}`, token: root })).status).toBe(404);
    });

    it('reads a client with its parent name', async () => {
      const child = await api({ method: 'GET', path: `/api/v3/agents/${tenants.child.agentId}`, token: root });
      expect(child.status).toBe(200);
      expect(child.body).toMatchObject({
        agentId: tenants.child.agentId,
        parentId: tenants.root.agentId,
        parentName: 'dir Root Logistics',
        name: 'dir Child Depot',
      });
    });
  });

  describe('users', () => {
    it('finds the users of the scope by filter, never another tenant, never a secret', async () => {
      const all = await api({ method: 'POST', path: '/api/v3/users/find', token: root, body: {} });
      expect(all.status).toBe(200);
      const logins = all.body.map((user: { login: string }) => user.login);
      expect(logins).toEqual(expect.arrayContaining([tenants.root.login, tenants.child.login, tenants.readOnly.login]));
      expect(logins).not.toContain(tenants.sibling.login);
      const byLogin = await api({
        method: 'POST',
        path: '/api/v3/users/find',
        token: root,
        body: { login: tenants.child.login.toUpperCase(), email: null },
      });
      expect(byLogin.body).toEqual([
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
      const byEmail = await api({ method: 'POST', path: '/api/v3/users/find', token: root, body: { email: 'viewer@dir.example.com' } });
      expect(byEmail.body.map((user: { id: string }) => user.id)).toEqual([tenants.readOnly.userId]);
      const foreign = await api({ method: 'POST', path: '/api/v3/users/find', token: root, body: { userId: tenants.sibling.userId } });
      expect(foreign.body).toEqual([]);
      const foreignClient = await api({ method: 'POST', path: '/api/v3/users/find', token: root, body: { parentId: tenants.sibling.agentId } });
      expect(foreignClient.status).toBe(404);
    });

    it('reads a user of the scope without password, sessions or channels; another tenant is 404', async () => {
      const user = await api({ method: 'GET', path: `/api/v3/users/${tenants.child.userId}`, token: root });
      expect(user.status).toBe(200);
      expect(Object.keys(user.body).sort()).toEqual(
        ['email', 'firstName', 'id', 'isEnabled', 'isReadOnly', 'language', 'lastName', 'login', 'parentId', 'parentName', 'sessionDuration'].sort(),
      );
      expect((await api({ method: 'GET', path: `/api/v3/users/${tenants.sibling.userId}`, token: root })).status).toBe(404);
      expect((await api({ method: 'GET', path: `/api/v3/users/${tenants.root.userId}`, token: sibling })).status).toBe(404);
    });

    it('creates a user who can log in, and refuses a taken login in any letter case', async () => {
      const body = {
        login: 'dir-new-driver',
        password: 'a long enough password',
        email: 'driver@dir.example.com',
        firstName: 'Ada',
        parentId: tenants.child.agentId,
      };
      const created = await api({ method: 'POST', path: '/api/v3/users', token: root, body });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({
        login: 'dir-new-driver',
        firstName: 'Ada',
        parentId: tenants.child.agentId,
        parentName: 'dir Child Depot',
        isEnabled: true,
      });
      expect(created.body).not.toHaveProperty('password');
      expect(await login(api, { ...tenants.child, login: 'dir-new-driver', password: 'a long enough password' })).toEqual(expect.any(String));
      const taken = await api({ method: 'POST', path: '/api/v3/users', token: root, body: { ...body, login: 'DIR-NEW-DRIVER' } });
      expect(taken.status).toBe(409);
      const takenOfOther = await api({ method: 'POST', path: '/api/v3/users', token: root, body: { ...body, login: tenants.sibling.login } });
      expect(takenOfOther.status).toBe(409);
    });

    it('creates a user only under a client of the scope', async () => {
      const body = { login: 'dir-intruder', password: 'a long enough password', email: 'x@dir.example.com', parentId: tenants.sibling.agentId };
      expect((await api({ method: 'POST', path: '/api/v3/users', token: root, body })).status).toBe(404);
      expect((await api({ method: 'POST', path: '/api/v3/users/find', token: sibling, body: { login: 'dir-intruder' } })).body).toEqual([]);
    });

    it('replaces a user read with GET (GET-edit-PUT), login and password included', async () => {
      const created = await api({
        method: 'POST',
        path: '/api/v3/users',
        token: root,
        body: { login: 'dir-editable', password: 'first password!', email: 'edit@dir.example.com', firstName: 'Old', lastName: 'Name' },
      });
      expect(created.body.parentId).toBe(tenants.root.agentId);
      const read = await api({ method: 'GET', path: `/api/v3/users/${created.body.id}`, token: root });
      const edited = { ...read.body, firstName: 'New', login: 'dir-edited', password: 'second password!', parentId: tenants.child.agentId };
      const replaced = await api({ method: 'PUT', path: '/api/v3/users', token: root, body: edited });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({
        id: created.body.id,
        login: 'dir-edited',
        firstName: 'New',
        lastName: 'Name',
        parentId: tenants.child.agentId,
      });
      const oldLogin = await api({ method: 'POST', path: '/api/v3/auth/login', body: { login: 'dir-editable', password: 'first password!' } });
      expect(oldLogin.status).toBe(401);
      expect(await login(api, { ...tenants.child, login: 'dir-edited', password: 'second password!' })).toEqual(expect.any(String));
      const childUsers = await api({
        method: 'POST',
        path: '/api/v3/users/find',
        token: root,
        body: { parentId: tenants.child.agentId, login: 'dir-edited' },
      });
      expect(childUsers.body.map((user: { id: string }) => user.id)).toEqual([created.body.id]);
      // a field not sent takes its default; null login, password and email stay
      const minimal = await api({
        method: 'PUT',
        path: '/api/v3/users',
        token: root,
        body: { id: created.body.id, parentId: tenants.child.agentId, login: null, email: null },
      });
      expect(minimal.body).toMatchObject({ login: 'dir-edited', email: 'edit@dir.example.com', firstName: '', lastName: '' });
    });

    it('refuses a replacement onto a taken login, and of another tenant (404)', async () => {
      const taken = await api({
        method: 'PUT',
        path: '/api/v3/users',
        token: root,
        body: { id: tenants.child.userId, parentId: tenants.child.agentId, login: tenants.root.login },
      });
      expect(taken.status).toBe(409);
      const foreign = await api({
        method: 'PUT',
        path: '/api/v3/users',
        token: root,
        body: { id: tenants.sibling.userId, parentId: tenants.root.agentId, password: 'hijacked password' },
      });
      expect(foreign.status).toBe(404);
      expect(await login(api, tenants.sibling)).toEqual(expect.any(String));
    });
  });

  describe('vehicles', () => {
    it('finds the vehicles of the scope by filter, never another tenant', async () => {
      const all = await api({
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
      const byName = await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { name: 'VAN' } });
      expect(byName.body.map((vehicle: { vehicleId: number }) => vehicle.vehicleId)).toEqual([303]);
      const byParent = await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { parentId: tenants.root.agentId } });
      expect(byParent.body.map((vehicle: { vehicleId: number }) => vehicle.vehicleId)).not.toContain(303);
      expect((await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { vehicleId: 202 } })).body).toEqual([]);
      expect((await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { parentId: tenants.sibling.agentId } })).status).toBe(
        404,
      );
    });

    it('pages with offset and limit, and bounds the page size', async () => {
      const first = await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { limit: 1 } });
      const second = await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { limit: 1, offset: 1 } });
      expect(first.body).toHaveLength(1);
      expect(second.body).toHaveLength(1);
      expect(second.body[0].vehicleId).toBeGreaterThan(first.body[0].vehicleId);
      const tooLarge = await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { limit: 1_001 } });
      expect(tooLarge.status).toBe(400);
      expect(tooLarge.body.issues[0].path).toBe('limit');
    });

    it('registers a vehicle with its owner chain and zone sets, as the admin CLI does', async () => {
      const created = await api({
        method: 'POST',
        path: '/api/v3/vehicles',
        token: root,
        body: { vehicleId: 5101, name: 'Reefer 5101', parentId: tenants.child.agentId },
      });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ vehicleId: 5101, name: 'Reefer 5101', parentId: tenants.child.agentId, parentName: 'dir Child Depot' });
      const { projection } = await loadVehicleState(5101);
      expect(projection.owners).toEqual([tenants.child.agentId, tenants.root.agentId]);
      expect(Object.keys(projection.zoneSets ?? {}).sort()).toEqual([tenants.child.agentId, tenants.root.agentId].sort());
      const found = await api({ method: 'POST', path: '/api/v3/vehicles/find', token: root, body: { vehicleId: 5101 } });
      expect(found.body).toEqual([created.body]);
      const renamed = await api({ method: 'PUT', path: '/api/v3/vehicles', token: root, body: { ...created.body, name: 'Reefer 5101 (new body)' } });
      expect(renamed.status).toBe(200);
      expect((await getVehicle(5101))?.name).toBe('Reefer 5101 (new body)');
    });

    it("refuses another tenant's vehicle with 409, even with allowMove, and leaves it where it is", async () => {
      for (const allowMove of [false, true]) {
        const taken = await api({ method: 'POST', path: '/api/v3/vehicles', token: root, body: { vehicleId: 202, name: 'Mine now', allowMove } });
        expect(taken.status).toBe(409);
        expect(taken.body.message).not.toContain(tenants.sibling.agentId);
      }
      const replaced = await api({
        method: 'PUT',
        path: '/api/v3/vehicles',
        token: root,
        body: { vehicleId: 202, name: 'Mine now', parentId: tenants.root.agentId, allowMove: true },
      });
      expect(replaced.status).toBe(404);
      expect(await getVehicle(202)).toEqual({ vehicleId: 202, name: 'Truck 202', parentId: tenants.sibling.agentId });
      expect((await loadVehicleState(202)).projection.owners).toEqual([tenants.sibling.agentId]);
    });

    it('moves a vehicle within the scope only with allowMove, and names the rules that stop applying', async () => {
      await api({
        method: 'POST',
        path: '/api/v3/vehicles',
        token: root,
        body: { vehicleId: 5202, name: 'Bus 5202', parentId: tenants.child.agentId },
      });
      const rule = await api({
        method: 'POST',
        path: '/api/v3/notifications',
        token: root,
        body: ruleBody(tenants.child.agentId, { vehicleIds: [5202] }),
      });
      expect(rule.status).toBe(200);
      const refused = await api({
        method: 'POST',
        path: '/api/v3/vehicles',
        token: root,
        body: { vehicleId: 5202, name: 'Bus 5202', parentId: tenants.root.agentId },
      });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain('allowMove');
      const refusedPut = await api({
        method: 'PUT',
        path: '/api/v3/vehicles',
        token: root,
        body: { vehicleId: 5202, name: 'Bus 5202', parentId: tenants.root.agentId },
      });
      expect(refusedPut.status).toBe(409);
      expect((await getVehicle(5202))?.parentId).toBe(tenants.child.agentId);
      const moved = await api({
        method: 'PUT',
        path: '/api/v3/vehicles',
        token: root,
        body: { vehicleId: 5202, name: 'Bus 5202', parentId: tenants.root.agentId, parentName: 'ignored', allowMove: true },
      });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({
        vehicleId: 5202,
        parentId: tenants.root.agentId,
        rulesNoLongerApplying: [{ id: rule.body.id, parentId: tenants.child.agentId }],
      });
      expect((await loadVehicleState(5202)).projection.owners).toEqual([tenants.root.agentId]);
    });

    it('refuses vehicle and user writes of a read-only user with 403', async () => {
      const vehicle = await api({ method: 'POST', path: '/api/v3/vehicles', token: viewer, body: { vehicleId: 5303, name: 'Sneaky' } });
      expect(vehicle.status).toBe(403);
      expect(vehicle.body.error).toBe('Forbidden');
      const user = await api({
        method: 'POST',
        path: '/api/v3/users',
        token: viewer,
        body: { login: 'dir-sneaky', password: 'a long enough password', email: 's@dir.example.com' },
      });
      expect(user.status).toBe(403);
      const self = await api({
        method: 'PUT',
        path: '/api/v3/users',
        token: viewer,
        body: { id: tenants.readOnly.userId, parentId: tenants.root.agentId, isReadOnly: false },
      });
      expect(self.status).toBe(403);
      expect(await getVehicle(5303)).toBeNull();
      expect((await api({ method: 'POST', path: '/api/v3/vehicles/find', token: viewer, body: {} })).status).toBe(200);
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
        const response = await api({ method, path, token: root, body });
        expect(response.status, path).toBe(400);
        expect(response.body.message, path).toContain(field);
      }
      expect(await getVehicle(5404)).toBeNull();
    });
  });

  describe('OpenAPI document', () => {
    it('shows each directory operation with a request and response example', async () => {
      const document = (await api({ method: 'GET', path: '/api/v3/openapi.json' })).body;
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

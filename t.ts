import { buildOpenApiDocument } from './shared/api/openapi';
import { apiRoutes as routes } from './shared/api/routes/index';
const doc = buildOpenApiDocument(routes) as any;
for (const [m,p] of [['post','/api/v3/notifications'],['put','/api/v3/notifications']]) {
const s = doc.paths[p][m].requestBody.content['application/json'].schema;
console.log(m, s.required, Object.entries(s.properties).filter(([k,v]:any)=>!v.description).map(([k])=>k));
}
console.log(JSON.stringify(doc.paths['/api/v3/notifications'].post.requestBody.content['application/json'].schema.properties.activationMode));

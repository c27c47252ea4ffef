/** The tags that group the operations of the OpenAPI document, each declared once with what it covers. */
export const API_TAGS = {
  auth: 'Sessions: log in, and check that a session is still active',
  clients: 'The client hierarchy: your client and the clients below it',
  users: 'Users of your client and of the clients below it',
  vehicles: "Vehicles registered under the platform's ids, each belonging to one client",
  notifications: 'Notification rules, their preview on messages, and the stored alerts they raised',
  geozones: 'Geozones (polygons and circles) and the visits of vehicles to them',
  channels: 'Delivery channels of your user: linked Telegram chats and push devices',
  email: 'Links of the e-mails fleetwatch sends: confirming a side address and unsubscribing',
  webhooks: 'Webhook endpoints of a client, and the alert fleetwatch POSTs to them',
  silences: 'Maintenance silences: windows in which the matching events of a client raise no alert',
  rotas: 'On-call rotas: who of a list of users is on call at a time, with overrides',
  meta: 'This document',
} as const;

export type ApiTag = keyof typeof API_TAGS;

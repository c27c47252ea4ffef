import { smsConfig } from '../../config';
import { monthOf, smsSpendOf } from '../../store/sms-spend';
import { agentParamsSchema } from '../directory-schemas';
import { smsSpendQuerySchema, smsSpendResponseSchema } from '../phone-schemas';
import { defineRoute } from '../route';

export const smsSpendRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v3/agents/{id}/sms/spend',
    operationId: 'getClientSmsSpend',
    tag: 'clients',
    summary: "A client's estimated SMS spend of a month, and its cap",
    description:
      'The client (yours or one below it; 404 otherwise) and its estimated SMS spend of the current calendar month (UTC), or of the ' +
      'month the query names (`month=YYYY-MM`; 400 on month for another shape; a month without SMS answers 0), counted as each ' +
      "SMS goes out (segments × the destination's price, from the installation's price table), against the monthly cap. Past the cap " +
      "the client's SMS stop until the month ends, and its users are told once by e-mail and Telegram.",
    auth: true,
    writes: false,
    params: agentParamsSchema,
    query: smsSpendQuerySchema,
    response: smsSpendResponseSchema,
    errors: [404],
    async handle({ params, query, caller, now }) {
      await caller.scope.require(params.id, `client ${params.id}`);
      const month = query.month ?? monthOf(now);
      const { spentMicroUsd } = await smsSpendOf(params.id, month);
      const capUsd = smsConfig().SMS_MONTHLY_CAP_USD;
      return { body: { parentId: params.id, month, spentUsd: spentMicroUsd / 1_000_000, capUsd, capReached: spentMicroUsd >= capUsd * 1_000_000 } };
    },
  }),
];

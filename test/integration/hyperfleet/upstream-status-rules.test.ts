// The HyperFleet emulator answers status writes and lists as the real API's source does
// (openshift-hyperfleet/hyperfleet-api @ 541f6b4), each rule checked over HTTP and citing the
// upstream file and function it follows.
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { openApiValidator } from '../../helpers/openapi';

const BASE = '/api/hyperfleet/v1';
const MANDATORY = ['Available', 'Applied', 'Health'];

describe('HyperFleet API emulator: status writes and lists follow the upstream source', () => {
  let emulator: HyperFleetApiEmulator;
  const validate = openApiValidator();

  beforeAll(async () => {
    emulator = await startHyperFleetApiEmulator({});
  });
  afterAll(() => emulator.stop());

  const call = async (method: string, target: string, body?: unknown) => {
    const response = await fetch(`${emulator.baseUrl}${BASE}${target}`, {
      method,
      ...(body !== undefined
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
        : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined,
    };
  };
  const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
  const report = (
    generation: number,
    observedTime: string,
    available = 'True',
    extra: Record<string, unknown> = {},
  ) => ({
    adapter: 'pullsecret',
    observed_generation: generation,
    observed_time: observedTime,
    conditions: MANDATORY.map((type) => ({
      type,
      status: type === 'Available' ? available : 'True',
      reason: 'Reason',
      message: `${type} message`,
    })),
    ...extra,
  });
  /** A cluster at `generation` (each label patch bumps it). */
  const cluster = async (name: string, generation = 1) => {
    const id = String(
      (await call('POST', '/clusters', { kind: 'Cluster', name, spec: {} })).body?.id,
    );
    for (let g = 2; g <= generation; g++)
      await call('PATCH', `/clusters/${id}`, { labels: { g: String(g) } });
    return id;
  };
  const put = (id: string, body: unknown) => call('PUT', `/clusters/${id}/statuses`, body);
  const stored = async (id: string) =>
    ((await call('GET', `/clusters/${id}/statuses`)).body?.items as Record<string, unknown>[])[0];

  // pkg/dao/adapter_status.go Upsert: UPDATE ... WHERE observed_generation < new OR
  // (observed_generation = new AND last_report_time < new); no row updated -> `existing` returned,
  // which pkg/handlers/resource_status_handler.go Create answers 201.
  it('rule 1: same generation, equal time -> 201 with the stored row, unchanged', async () => {
    const id = await cluster('equal-time');
    const t = at(-60_000);
    const first = await put(id, report(1, t, 'False', { data: { first: true } }));
    expect(first.status).toBe(201);
    const again = await put(id, report(1, t, 'True', { data: { second: true } }));
    expect(again).toEqual({ status: 201, body: first.body });
    expect(again.body?.data).toEqual({ first: true });
    expect(await stored(id)).toEqual(first.body);
  });

  // Same Upsert: a strictly later last_report_time at the same generation, or a higher generation,
  // updates the row; created_time stays the first report's observed_time (presenters
  // ConvertAdapterStatus sets it from observed_time; Upsert's update leaves it alone).
  it('rule 1: same generation later time, and a newer generation, are stored (201)', async () => {
    const id = await cluster('later-time', 2);
    const t0 = at(-120_000);
    expect((await put(id, report(1, t0, 'False'))).body?.created_time).toBe(t0);
    const later = await put(id, report(1, at(-60_000), 'True'));
    expect(later.status).toBe(201);
    expect(later.body).toMatchObject({ observed_generation: 1, created_time: t0, data: {} });
    const newer = await put(id, report(2, at(-90_000)));
    expect(newer.status).toBe(201);
    expect(newer.body).toMatchObject({ observed_generation: 2, created_time: t0 });
    expect(validate('AdapterStatus', newer.body)).toEqual([]);
  });

  // pkg/services/adapter_status_validation.go validateAndClassifyAdapterStatus: future generation,
  // stale generation and (same generation) an observed time Before the stored one return
  // (nil, false, nil); resource_status_handler.go Create answers a bare 204.
  it('rule 1: earlier time, older generation, generation above the cluster -> bare 204', async () => {
    const id = await cluster('discards', 2);
    expect((await put(id, report(2, at(-60_000)))).status).toBe(201);
    for (const body of [report(2, at(-120_000)), report(1, at(0)), report(3, at(0))])
      expect(await put(id, body)).toEqual({ status: 204, body: undefined });
    expect((await stored(id))?.observed_generation).toBe(2);
  });

  // validateAndClassifyAdapterStatus: the discard checks run first, then ValidateMandatoryConditions
  // (400), then Available=Unknown with a stored row (204).
  it('rule 2: a discard wins over a missing mandatory condition; otherwise 400', async () => {
    const id = await cluster('mandatory-order');
    const missing = (generation: number) => ({
      ...report(generation, at(0)),
      conditions: report(generation, at(0)).conditions.filter((c) => c.type !== 'Health'),
    });
    expect((await put(id, missing(2))).status).toBe(204);
    const refused = await put(id, missing(1));
    expect(refused.status).toBe(400);
    expect(refused.body?.detail).toBe(
      "missing mandatory condition 'Health': all adapters must report Available, Applied, and Health",
    );
    expect((await put(id, report(1, at(-1000), 'Unknown'))).status).toBe(201); // first report kept
    expect((await put(id, report(1, at(0), 'Unknown'))).status).toBe(204);
  });

  // pkg/handlers/list_params.go parseListParams: Size `validate:"min=1,max=100"`, Page
  // `min=1,max=100000`, strconv.ParseInt format errors; 400 VAL-000, never capped.
  it('rule 3: size above 100 or not an integer is 400, not capped', async () => {
    const id = await cluster('list-size');
    for (const [query, field, constraint] of [
      ['size=101', 'size', 'max'],
      ['size=0', 'size', 'min'],
      ['size=1e2', 'size', 'format'],
      ['page=100001', 'page', 'max'],
    ] as const) {
      for (const target of ['/clusters', `/clusters/${id}/statuses`]) {
        const answer = await call('GET', `${target}?${query}`);
        expect({ query, status: answer.status, code: answer.body?.code }).toEqual({
          query,
          status: 400,
          code: 'HYPERFLEET-VAL-000',
        });
        expect(answer.body?.errors).toEqual([expect.objectContaining({ field, constraint })]);
        expect(validate('ProblemDetails', answer.body)).toEqual([]);
      }
    }
    expect((await call('GET', '/clusters?size=100&page=%20')).status).toBe(200);
  });

  // resource_status_handler.go List: parseListParams before verifyResource; Create:
  // decodeAndValidate before verifyResource. So a bad request on a missing cluster is 400.
  it('rule 4: the request is validated before the cluster lookup', async () => {
    const list = await call('GET', '/clusters/no-such-cluster/statuses?size=500');
    expect(list.status).toBe(400);
    const tooOld = await put('no-such-cluster', report(1, at(-31 * 60_000)));
    expect(tooOld.status).toBe(400);
    expect(tooOld.body?.detail).toBe('observed_time must not be more than 30m0s in the past');
    // The mandatory check needs the stored rows: a missing cluster is found missing first.
    const { conditions: _none, ...noConditions } = report(1, at(0));
    expect((await put('no-such-cluster', noConditions)).status).toBe(404);
  });

  // pkg/handlers/helpers.go decodeAndValidate (empty / undecodable body: VAL-006; wrong JSON type:
  // VAL-000 "field 'x' must be ..."), then pkg/handlers/validation.go in the handler's order:
  // validateNotEmpty(adapter), validateObservedGeneration, validateConditions,
  // validateObservedTimeRange; the first failure is the answer.
  it('rule 5: the handler checks and their messages', async () => {
    const id = await cluster('handler-checks');
    const raw = await fetch(`${emulator.baseUrl}${BASE}/clusters/${id}/statuses`, {
      method: 'PUT',
      body: '{not json',
    });
    expect(((await raw.json()) as { code: string }).code).toBe('HYPERFLEET-VAL-006');
    const cases: [unknown, string][] = [
      [
        { ...report(1, at(0)), observed_generation: 1.5 },
        "field 'observed_generation' must be a number",
      ],
      [{ ...report(1, at(0)), adapter: '', observed_generation: 0 }, 'adapter is required'],
      [{ ...report(1, at(0)), observed_generation: 0 }, 'observed_generation must be >= 1'],
      [
        { ...report(1, at(10 * 60_000)), conditions: [{ type: 'Available', status: 'Maybe' }] },
        "invalid status value 'Maybe' for condition at index 0 (type: Available): must be 'True', 'False', or 'Unknown'",
      ],
      [report(1, at(10 * 60_000)), 'observed_time must not be more than 5m0s in the future'],
    ];
    for (const [body, detail] of cases) {
      const answer = await put(id, body);
      expect({
        status: answer.status,
        code: answer.body?.code,
        detail: answer.body?.detail,
      }).toEqual({
        status: 400,
        code: 'HYPERFLEET-VAL-000',
        detail,
      });
    }
  });

  // pkg/api/presenters/adapter_status.go PresentAdapterStatus: `data` always present (`{}` when
  // none), metadata only with the spec's fields (the request decodes into a typed struct).
  it('rule 5: data defaults to {} and metadata keeps only the spec fields', async () => {
    const id = await cluster('presented');
    const answer = await put(
      id,
      report(1, at(0), 'True', { metadata: { job_name: 'job-1', attempt: 2, secret: 'x' } }),
    );
    expect(answer.body).toMatchObject({ data: {}, metadata: { job_name: 'job-1', attempt: 2 } });
    expect((answer.body?.metadata as Record<string, unknown>).secret).toBeUndefined();
  });
});

/** Names of the local system: the same topics and subscriptions Terraform creates in GCP. */
export const LOCAL_PROJECT = 'demo-hyperfleet';
export const LOCAL_REGION = 'local';
export const JOB_NAME = `projects/${LOCAL_PROJECT}/locations/${LOCAL_REGION}/jobs/pullsecret-job`;

export const TOPICS = {
  sentinel: 'hyperfleet-system-clusters',
  results: 'pullsecret-job-results',
  finished: 'pullsecret-execution-finished',
} as const;

export const SUBSCRIPTIONS = {
  adapter: {
    name: 'pullsecret-adapter',
    topic: TOPICS.sentinel,
    deadLetter: 'pullsecret-adapter-dead-letter',
  },
  results: {
    name: 'pullsecret-results',
    topic: TOPICS.results,
    deadLetter: 'pullsecret-results-dead-letter',
  },
  finished: {
    name: 'pullsecret-finished',
    topic: TOPICS.finished,
    deadLetter: 'pullsecret-finished-dead-letter',
  },
} as const;

/** Pub/Sub push retries and dead-lettering (shorter backoff than GCP so local runs converge fast). */
export const DELIVERY = {
  maxDeliveryAttempts: 5,
  minimumBackoffSeconds: 1,
  maximumBackoffSeconds: 10,
} as const;

export const topicPath = (topic: string) => `projects/${LOCAL_PROJECT}/topics/${topic}`;

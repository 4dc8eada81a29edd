import { stopTracked } from './helpers/tracked-processes';

// No test may leave a process behind, whatever its assertions did.
afterAll(stopTracked);

import { parentPort, workerData } from 'node:worker_threads';
import { type ModelJob, modelOutcome } from './openapi-model';

// One OpenAPI description read as tools, in its own thread (see buildModelApart).
void modelOutcome(workerData as ModelJob).then((outcome) => parentPort!.postMessage(outcome));

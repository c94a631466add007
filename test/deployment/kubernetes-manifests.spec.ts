import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { OVERLAYS, renderOverlay, validateManifests } from '../../scripts/validate-kubernetes';
import { kubectlAvailable } from './kubectl-available';

interface Container {
  name: string;
  args?: string[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value?: string }[];
  startupProbe?: { httpGet?: { path: string } };
  readinessProbe?: { httpGet?: { path: string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string }[];
}

interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
  containers: Container[];
  volumes?: { name: string }[];
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    template?: { spec: PodSpec };
    volumeClaimTemplates?: { metadata: { name: string } }[];
    scaleTargetRef?: { kind: string; name: string };
  };
}

function render(overlay: string): { text: string; objects: K8sObject[] } {
  const text = renderOverlay(join(OVERLAYS, overlay));
  return {
    text,
    objects: parseAllDocuments(text).map((document) => document.toJS() as K8sObject),
  };
}

function only(objects: K8sObject[], kind: string): K8sObject {
  const matches = objects.filter((object) => object.kind === kind);
  expect(matches).toHaveLength(1);
  return matches[0]!;
}

/** Every pod template: restricted, and with nothing secret written into it. */
function expectRestrictedPods(objects: K8sObject[]): void {
  const pods = objects.flatMap((object) => (object.spec?.template ? [object.spec.template] : []));
  expect(pods.length).toBeGreaterThan(0);
  for (const { spec } of pods) {
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const container of spec.containers) {
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      expect(container.envFrom).toContainEqual({ secretRef: { name: 'portico' } });
      for (const variable of container.env ?? [])
        expect(variable.name).not.toMatch(/PASSWORD|SECRET|KEY|TOKEN|DATABASE_URL|REDIS_URL/);
      expect(container.resources?.requests?.memory).toBeDefined();
      expect(container.resources?.limits?.memory).toBeDefined();
    }
  }
  expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
}

function expectServerContainer(workload: K8sObject): Container {
  const container = workload.spec!.template!.spec.containers.find((c) => c.name === 'portico')!;
  expect(container.args).toEqual(['start']);
  expect(container.startupProbe?.httpGet?.path).toBe('/healthz');
  expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
  expect(container.volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' });
  return container;
}

(kubectlAvailable ? describe : describe.skip)('Kubernetes overlays', () => {
  it('embedded: one StatefulSet replica with a data volume, restricted and schema-valid', () => {
    const { text, objects } = render('embedded');
    expect(validateManifests(text)).toEqual([]);
    const statefulSet = only(objects, 'StatefulSet');
    expect(statefulSet.spec!.replicas).toBe(1);
    expect(statefulSet.spec!.volumeClaimTemplates!.map((claim) => claim.metadata.name)).toEqual([
      'data',
    ]);
    expectServerContainer(statefulSet);
    for (const kind of ['Service', 'PodDisruptionBudget', 'NetworkPolicy', 'ServiceMonitor'])
      only(objects, kind);
    expectRestrictedPods(objects);
  });

  it('production: a Deployment without start-up migrations, a migration Job and an autoscaler', () => {
    const { text, objects } = render('production');
    expect(validateManifests(text)).toEqual([]);
    const deployment = only(objects, 'Deployment');
    const server = expectServerContainer(deployment);
    const configMap = only(objects, 'ConfigMap');
    expect(server.envFrom).toContainEqual({ configMapRef: { name: configMap.metadata.name } });
    expect(configMap.data).toMatchObject({ RUN_MIGRATIONS: 'false' });
    const job = only(objects, 'Job');
    expect(job.spec!.template!.spec.containers.map((container) => container.args)).toEqual([
      ['migrate'],
    ]);
    expect(only(objects, 'HorizontalPodAutoscaler').spec!.scaleTargetRef).toMatchObject({
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    for (const kind of ['Service', 'PodDisruptionBudget', 'NetworkPolicy', 'ServiceMonitor'])
      only(objects, kind);
    expectRestrictedPods(objects);
  });

  it('the validation refuses unknown fields, bad values, missing fields and unknown kinds', () => {
    const { objects } = render('production');
    const broken = (edit: (objects: K8sObject[]) => void) => {
      const copy = structuredClone(objects);
      edit(copy);
      return validateManifests(copy.map((object) => stringify(object)).join('---\n'));
    };
    const server = (copy: K8sObject[]) =>
      copy.find((object) => object.kind === 'Deployment')!.spec!.template!.spec.containers[0]!;

    expect(
      broken((copy) => {
        const container = server(copy) as unknown as Record<string, unknown>;
        container.readinesProbe = container.readinessProbe;
        delete container.readinessProbe;
      }),
    ).toEqual([expect.stringMatching(/^Deployment portico: .*'"readinesProbe"' does not exist/)]);
    expect(broken((copy) => (server(copy).resources!.limits!.memory = 'lots'))).toContainEqual(
      expect.stringMatching(/limits\/memory must match format "quantity"/),
    );
    expect(
      broken((copy) => delete copy.find((object) => object.kind === 'Deployment')!.spec!.template),
    ).toContainEqual(expect.stringMatching(/must have required property template/));
    expect(
      broken((copy) => {
        const monitor = copy.find((object) => object.kind === 'ServiceMonitor')!;
        (monitor.spec as unknown as { endpoints: { interval: unknown }[] }).endpoints[0]!.interval =
          30;
      }),
    ).toContainEqual(expect.stringMatching(/^ServiceMonitor portico: .*interval must be string/));
    expect(broken((copy) => (copy[0]!.kind = 'Deploymnet'))).toContainEqual(
      expect.stringMatching(/no schema for/),
    );
  });
});

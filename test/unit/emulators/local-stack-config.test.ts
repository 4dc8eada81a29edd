import { loadLocalStackConfig } from '../../../emulators/pullsecret/stack/config';
import { ConfigError } from '../../../shared/errors';

describe('local stack configuration', () => {
  it('runs two adapter instances unless told otherwise', () => {
    expect(loadLocalStackConfig({})).toEqual({
      adapterInstances: 2,
      delivery: 'push',
      namespaceLayout: { template: 'clusters-{id}' },
    });
    expect(
      loadLocalStackConfig({ MANAGEMENT_NAMESPACE_TEMPLATE: 'clusters' }).namespaceLayout,
    ).toEqual({ template: 'clusters' });
    expect(() => loadLocalStackConfig({ MANAGEMENT_NAMESPACE_TEMPLATE: 'hc-{name}' })).toThrow(
      /MANAGEMENT_NAMESPACE_TEMPLATE: has the placeholder \{name\}/,
    );
    expect(loadLocalStackConfig({ PULLSECRET_ADAPTER_INSTANCES: '' })).toMatchObject({
      adapterInstances: 2,
    });
    expect(loadLocalStackConfig({ PULLSECRET_ADAPTER_INSTANCES: ' 3 ' })).toMatchObject({
      adapterInstances: 3,
    });
    expect(loadLocalStackConfig({ PULLSECRET_ADAPTER_INSTANCES: '1' })).toMatchObject({
      adapterInstances: 1,
    });
  });

  it.each([
    ['0', /PULLSECRET_ADAPTER_INSTANCES: must be between 1 and 16/],
    ['17', /PULLSECRET_ADAPTER_INSTANCES: must be between 1 and 16/],
    ['two', /PULLSECRET_ADAPTER_INSTANCES: must be a whole number of adapter instances/],
    ['1.5', /PULLSECRET_ADAPTER_INSTANCES: must be a whole number of adapter instances/],
    ['-1', /PULLSECRET_ADAPTER_INSTANCES: must be a whole number of adapter instances/],
  ])('refuses %j with a message naming the variable', (value, message) => {
    const load = () => loadLocalStackConfig({ PULLSECRET_ADAPTER_INSTANCES: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
    expect(load).toThrow(/Invalid local stack configuration/);
  });

  it('delivers through push subscriptions unless LOCAL_DELIVERY=eventarc', () => {
    expect(loadLocalStackConfig({ LOCAL_DELIVERY: 'eventarc' }).delivery).toBe('eventarc');
    expect(loadLocalStackConfig({ LOCAL_DELIVERY: 'push' }).delivery).toBe('push');
    const load = () => loadLocalStackConfig({ LOCAL_DELIVERY: 'cloudevents' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/LOCAL_DELIVERY: must be push .* or eventarc/);
  });
});

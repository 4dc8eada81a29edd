import * as protobuf from 'protobufjs';

/**
 * Makes protobufjs set each message type up once, also for the Google clients' long-running
 * methods. Why: a generated client (e.g. Cloud Run's JobsClient) binds each long-running method's
 * decoders as `type.decode.bind(type)` when it is constructed, before protobufjs has set the type
 * up. protobufjs's `Type#decode` is then its setup stub, which generates the type's encoder,
 * decoder, verifier and converters, installs them on the type and decodes; the bound stub never
 * sees what it installed, so every RunJob answer generated and compiled all five for `Execution`
 * again (about 8 % of the adapter's launch CPU in its profile, plus the compiling and GC).
 * Installed, the stub decodes with the type's generated decoder once there is one; what is decoded
 * is unchanged. Idempotent.
 */
export function decodeWithSetUpTypes(): void {
  const prototype = protobuf.Type.prototype;
  if (prototype.decode.name === decodeAfterSetup.name) return;
  const setupStub = prototype.decode;
  function decodeAfterSetup(
    this: protobuf.Type,
    ...args: Parameters<protobuf.Type['decode']>
  ): protobuf.Message {
    return Object.hasOwn(this, 'decode') ? this.decode(...args) : setupStub.apply(this, args);
  }
  prototype.decode = decodeAfterSetup;
}

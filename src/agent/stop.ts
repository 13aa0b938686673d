/**
 * Why a turn was stopped by Tea rather than by the user: the reason of the turn's
 * abort signal. The loop reports it as an error (not a cancellation).
 */
export class TurnStopped extends Error {
  constructor(
    /**
     * `deadline`: the turn ran past agent.turn_timeout_s; `lease_lost`: another runner took
     * the session; `time_limit`: a sub-agent ran past its own time limit.
     */
    readonly kind: 'deadline' | 'lease_lost' | 'time_limit',
    message: string,
  ) {
    super(message);
    this.name = 'TurnStopped';
  }
}

/**
 * The signal a turn runs under: aborted when the user's signal aborts, or by
 * `stop` with a `TurnStopped` reason. `dispose` detaches it from the user's signal.
 */
export function turnSignal(user: AbortSignal): {
  signal: AbortSignal;
  stop(why: TurnStopped): void;
  dispose(): void;
} {
  const controller = new AbortController();
  const follow = (): void => controller.abort(user.reason);
  if (user.aborted) follow();
  else user.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    stop: (why) => {
      if (!controller.signal.aborted) controller.abort(why);
    },
    dispose: () => user.removeEventListener('abort', follow),
  };
}

/** `signal.aborted` as a plain field, kept by an abort listener (see `TurnState.stop`). */
export function abortFlag(signal: AbortSignal): { readonly aborted: boolean } {
  const flag = { aborted: signal.aborted };
  if (!flag.aborted) {
    signal.addEventListener(
      'abort',
      () => {
        flag.aborted = true;
      },
      { once: true },
    );
  }
  return flag;
}

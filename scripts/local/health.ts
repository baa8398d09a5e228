/** Waits until every URL answers 200 (the services are listening, but their first answer is the proof). */
export async function waitHealthy(urls: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(
    urls.map(async (url) => {
      for (;;) {
        const status = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
          async (response) => {
            await response.body?.cancel();
            return response.status;
          },
          () => 0,
        );
        if (status === 200) return;
        if (Date.now() > deadline)
          throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s (last: ${status || "no answer"})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }),
  );
}

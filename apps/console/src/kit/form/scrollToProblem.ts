import { useEffect, type DependencyList, type RefObject } from 'react';

/**
 * After a refused save (`attempt` > 0), brings the first invalid field into view: forms are long
 * and the message may sit far from it. `deps` add other triggers (the tab that opened).
 */
export function useScrollToProblem(root: RefObject<HTMLElement | null>, attempt: number, deps: DependencyList = []): void {
  useEffect(() => {
    if (attempt === 0) return;
    root.current?.querySelector('[aria-invalid="true"]')?.scrollIntoView({ block: 'center' });
  }, [attempt, ...deps]);
}

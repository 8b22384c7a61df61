/** The floor's activities: no I/O, no work, so their time is Temporal's and the worker's alone. */
export const floorActivities = {
  async floorModel(step: number): Promise<number> {
    return step;
  },
  async floorTool(reply: number): Promise<number> {
    return reply;
  },
};

export type FloorActivities = typeof floorActivities;

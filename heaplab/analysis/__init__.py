"""What a run measured: GC, client latency, memory, mechanism and CPU metrics, timelines, allocation
stages."""

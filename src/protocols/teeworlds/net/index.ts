/** Teeworlds / DDNet network layer (packets, Huffman, chunks, client). Filled in by the network-client issue. */
export {};

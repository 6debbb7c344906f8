/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_IRQ_H
#define SOFTCX_IRQ_H

#include <linux/types.h>

/*
 * The interrupt controller of one softcx device: an IRQ domain with one
 * hwirq per MSI-X vector. The hca raises a vector from any context; the
 * handler registered with request_irq() on its virq then runs in hardirq
 * context, as for a PCI device.
 */
struct scx_irqs;

struct scx_irqs *scx_irqs_create(const char *name, unsigned int nvec);
void scx_irqs_destroy(struct scx_irqs *irqs);
void scx_irqs_raise(struct scx_irqs *irqs, unsigned int vec);
/* The Linux irq number of a vector, for request_irq(); 0 if out of range. */
unsigned int scx_irqs_virq(struct scx_irqs *irqs, unsigned int vec);
/* Interrupts taken on a vector so far (its /proc/interrupts counts, summed). */
unsigned long scx_irqs_count(struct scx_irqs *irqs, unsigned int vec);

#endif

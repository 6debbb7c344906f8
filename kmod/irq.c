// SPDX-License-Identifier: GPL-2.0
/*
 * A software interrupt controller: an irq domain whose interrupts are raised
 * by the hca and delivered through irq_work in hardirq context. The stock
 * Debian kernel has no IRQ_SIM, so this is built from the exported domain
 * and irq_work primitives.
 */
#include "kmod.h"

#include <linux/bitmap.h>
#include <linux/irq.h>
#include <linux/irq_work.h>
#include <linux/irqdesc.h>
#include <linux/irqdomain.h>
#include <linux/slab.h>

#include "irq.h"

struct scx_irqs {
	struct irq_domain *domain;
	struct fwnode_handle *fwnode;
	struct irq_work work;
	unsigned int nvec;
	unsigned long *pending;
	unsigned int virq[];
};

/* Message-signalled: nothing to mask or acknowledge at the "device". */
static void scx_irq_noop(struct irq_data *d)
{
}

static struct irq_chip scx_irq_chip = {
	.name = "softcx",
	.irq_ack = scx_irq_noop,
	.irq_mask = scx_irq_noop,
	.irq_unmask = scx_irq_noop,
};

/*
 * Edge flow, as for MSI: a vector raised on one CPU while its handler runs
 * on another is marked pending and handled again there. The simple flow
 * drops it, and an EQ that fired into a dropped interrupt is never armed
 * again (its completions stop for good).
 */
static int scx_irq_map(struct irq_domain *d, unsigned int virq, irq_hw_number_t hw)
{
	irq_set_chip_and_handler(virq, &scx_irq_chip, handle_edge_irq);
	irq_set_chip_data(virq, d->host_data);
	irq_set_noprobe(virq);
	return 0;
}

static const struct irq_domain_ops scx_irq_domain_ops = {
	.map = scx_irq_map,
	.xlate = irq_domain_xlate_onecell,
};

/* Runs in hardirq context: deliver every pending vector. */
static void scx_irqs_deliver(struct irq_work *work)
{
	struct scx_irqs *irqs = container_of(work, struct scx_irqs, work);
	unsigned int vec;

	for (vec = 0; vec < irqs->nvec; vec++)
		if (test_and_clear_bit(vec, irqs->pending))
			generic_handle_domain_irq(irqs->domain, vec);
}

struct scx_irqs *scx_irqs_create(const char *name, unsigned int nvec)
{
	struct scx_irqs *irqs;
	unsigned int i;

	irqs = kzalloc(struct_size(irqs, virq, nvec), GFP_KERNEL);
	if (!irqs)
		return NULL;
	irqs->nvec = nvec;
	irqs->pending = bitmap_zalloc(nvec, GFP_KERNEL);
	if (!irqs->pending)
		goto err_free;
	irqs->work = IRQ_WORK_INIT_HARD(scx_irqs_deliver);
	irqs->fwnode = irq_domain_alloc_named_fwnode(name);
	if (!irqs->fwnode)
		goto err_bitmap;
	irqs->domain = irq_domain_create_linear(irqs->fwnode, nvec, &scx_irq_domain_ops, irqs);
	if (!irqs->domain)
		goto err_fwnode;
	for (i = 0; i < nvec; i++) {
		irqs->virq[i] = irq_create_mapping(irqs->domain, i);
		if (!irqs->virq[i])
			goto err_map;
	}
	return irqs;

err_map:
	while (i--)
		irq_dispose_mapping(irqs->virq[i]);
	irq_domain_remove(irqs->domain);
err_fwnode:
	irq_domain_free_fwnode(irqs->fwnode);
err_bitmap:
	bitmap_free(irqs->pending);
err_free:
	kfree(irqs);
	return NULL;
}

void scx_irqs_destroy(struct scx_irqs *irqs)
{
	unsigned int i;

	if (!irqs)
		return;
	irq_work_sync(&irqs->work);
	for (i = 0; i < irqs->nvec; i++)
		irq_dispose_mapping(irqs->virq[i]);
	irq_domain_remove(irqs->domain);
	irq_domain_free_fwnode(irqs->fwnode);
	bitmap_free(irqs->pending);
	kfree(irqs);
}

void scx_irqs_raise(struct scx_irqs *irqs, unsigned int vec)
{
	if (vec >= irqs->nvec)
		return;
	set_bit(vec, irqs->pending);
	irq_work_queue(&irqs->work);
}

unsigned int scx_irqs_virq(struct scx_irqs *irqs, unsigned int vec)
{
	return vec < irqs->nvec ? irqs->virq[vec] : 0;
}

/* Interrupts taken on a vector, summed over CPUs as /proc/interrupts shows them. */
unsigned long scx_irqs_count(struct scx_irqs *irqs, unsigned int vec)
{
	struct irq_data *d;
	struct irq_desc *desc;
	unsigned long sum = 0;
	int cpu;

	if (vec >= irqs->nvec)
		return 0;
	d = irq_get_irq_data(irqs->virq[vec]);
	if (!d)
		return 0;
	desc = irq_data_to_desc(d);
	for_each_possible_cpu(cpu)
		sum += irq_desc_kstat_cpu(desc, cpu);
	return sum;
}
